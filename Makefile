# Two commands do all the set-up:
#   make run   installs what is missing, builds, and simulates scenarios/quickstart.yaml
#   make test  installs what is missing, builds, and runs the whole test suite
PACKAGES := cmake g++ make pkg-config libsimgrid-dev libboost-graph-dev libfmt-dev libyaml-cpp-dev \
            libgtest-dev libgmock-dev libeigen3-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev
PRESET ?= release
JOBS ?= 2

.PHONY: run test deps build bench clean

run: build
	./build/$(PRESET)/dtsim run scenarios/quickstart.yaml

test: build
	ctest --preset $(PRESET) -j $(JOBS)

deps:
	@sh cmake/install-deps.sh $(PACKAGES)

build: deps
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET) -j $(JOBS)

bench: build
	sh bench/quickstart_wall_time.sh ./build/$(PRESET)/dtsim
	./build/$(PRESET)/bench/gradient_bench

clean:
	rm -rf build out
