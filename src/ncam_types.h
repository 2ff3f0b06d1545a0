// Rcpp::compileAttributes() puts this file first in the generated RcppExports.cpp, before the
// <RcppEigen.h> it adds for every package in LinkingTo. That file only converts Rcpp types
// (the glue maps the data for the engine), so it needs nothing from RcppEigen, whose headers
// would bring ~40 of Eigen's "ignoring attributes on template argument" warnings to every
// build (one of them past any diagnostic pragma). Marking RcppEigen.h as already included
// keeps it out of that one file; if RcppEigen renames its include guard, the include comes
// back and with it only the warnings.
#ifndef NCAM_TYPES_H
#define NCAM_TYPES_H
#define RcppEigen__RcppEigen__h
#endif
