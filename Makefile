# make        install dependencies, build, install, and run the main job (tools/demo.R)
# make test   R CMD check --as-cran on the built tarball (runs the testthat suite)
PKG     := ncam
VERSION := $(shell sed -n 's/^Version: //p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
CHECK_ENV := _R_CHECK_CRAN_INCOMING_=false _R_CHECK_CRAN_INCOMING_REMOTE_=false _R_CHECK_SYSTEM_CLOCK_=false \
             _R_CHECK_FUTURE_FILE_TIMESTAMPS_=false NOT_CRAN=true

.PHONY: all deps build install run test cpp-test clean

all: run

deps:
	bash tools/install-deps.sh

$(TARBALL): deps
	R CMD build .

build: $(TARBALL)

install: build
	R CMD INSTALL $(TARBALL)

run: install
	Rscript tools/demo.R

test: build
	$(CHECK_ENV) R CMD check --as-cran --no-manual $(TARBALL)

cpp-test:
	$(MAKE) -C tests/cpp test

clean:
	rm -rf $(PKG)_*.tar.gz $(PKG).Rcheck src/*.o src/*.so
