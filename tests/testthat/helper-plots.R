# The data of the layer drawn by `geom` (such as "GeomRibbon") in a built plot.
layer_data_of <- function(plot, geom) {
  built <- ggplot2::ggplot_build(plot)
  which_layer <- which(vapply(plot$layers, function(l) inherits(l$geom, geom), logical(1)))
  expect_length(which_layer, 1L)
  built$data[[which_layer]]
}

