# make        install dependencies, build, install, and run the main job (tools/demo.R)
# make test   R CMD check --as-cran on the built tarball (runs the testthat suite)
PKG     := ncam
VERSION := $(shell sed -n 's/^Version: //p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
CHECK_ENV := _R_CHECK_CRAN_INCOMING_=false _R_CHECK_CRAN_INCOMING_REMOTE_=false _R_CHECK_SYSTEM_CLOCK_=false \
             _R_CHECK_FUTURE_FILE_TIMESTAMPS_=false NOT_CRAN=true

# What the tarball is built from: a second `make` or `make test` reuses it unless one changed.
SOURCES := DESCRIPTION NAMESPACE $(wildcard R/*.R man/*.Rd src/*.cpp src/*.h src/Makevars* \
             src/ncam/*.hpp data/* inst/*/* vignettes/*.Rmd vignettes/figures/* tests/*.R tests/testthat/*.R \
             tests/testthat/_snaps/*)

.PHONY: all deps build install run test cpp-test clean

all: run

# Stamps record that a step is done, so each happens once per change of its inputs.
.deps-installed: tools/install-deps.sh DESCRIPTION
	bash tools/install-deps.sh
	touch $@

deps: .deps-installed

$(TARBALL): .deps-installed $(SOURCES)
	R CMD build .

build: $(TARBALL)

.installed: $(TARBALL)
	R CMD INSTALL $(TARBALL)
	touch $@

install: .installed

run: .installed
	Rscript tools/demo.R

test: $(TARBALL)
	$(CHECK_ENV) R CMD check --as-cran --no-manual $(TARBALL)

cpp-test:
	$(MAKE) -C tests/cpp test

clean:
	rm -rf $(PKG)_*.tar.gz $(PKG).Rcheck src/*.o src/*.so .deps-installed .installed
