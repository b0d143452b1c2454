# Two commands do all the set-up:
#   make run   installs what is missing, builds, and simulates scenarios/quickstart.yaml
#   make test  installs what is missing, builds, and runs the quick test suite (make test-extensive: the long tests)
#   make fuzz  builds the scenario reader's libFuzzer target with clang and runs it for FUZZ_SECONDS
PACKAGES := cmake g++ make pkg-config libsimgrid-dev libboost-graph-dev libfmt-dev libyaml-cpp-dev \
            libgtest-dev libgmock-dev libeigen3-dev zlib1g-dev protobuf-compiler libprotobuf-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev libjemalloc-dev \
            python3 python3-jsonschema python3-yaml chromium slurm-wlm munge \
            python3-dev python3-pybind11 python3-pandas jupyter-nbconvert python3-nbformat python3-ipykernel
FUZZ_PACKAGES := clang libclang-rt-14-dev
PRESET ?= release
JOBS ?= 2
FUZZ_SECONDS ?= 60

.PHONY: run test test-extensive deps build bench fuzz clean

run: build
	./build/$(PRESET)/dtsim run scenarios/quickstart.yaml

test: build
	ctest --preset $(PRESET) -j $(JOBS)

# The tests too long for the quick suite (label extensive): scenarios whose one run takes minutes.
test-extensive: build
	cd build/$(PRESET) && ctest -L extensive -j $(JOBS) --output-on-failure

deps:
	@sh cmake/install-deps.sh $(PACKAGES)
	@sh cmake/install-js.sh

build: deps
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET) -j $(JOBS)

bench: build
	sh bench/quickstart_wall_time.sh ./build/$(PRESET)/dtsim
	sh bench/real_math_scale.sh ./build/$(PRESET)/dtsim
	sh bench/report_scale.sh ./build/$(PRESET)/dtsim
	sh bench/course_labs_wall_time.sh ./build/$(PRESET)/dtsim
	sh bench/cluster_wall_time.sh ./build/$(PRESET)/dtsim
	./build/$(PRESET)/bench/gradient_bench

fuzz:
	@sh cmake/install-deps.sh $(PACKAGES) $(FUZZ_PACKAGES)
	@sh cmake/install-js.sh
	cmake --preset fuzz
	cmake --build --preset fuzz -j $(JOBS)
	sh tests/fuzz/run_fuzzer.sh build/fuzz/tests/fuzz/scenario_reader_fuzz $(FUZZ_SECONDS)

clean:
	rm -rf build out
