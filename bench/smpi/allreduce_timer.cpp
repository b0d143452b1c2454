// Times MPI_Allreduce of N floats (argv[1]) under SMPI, R times in a row (argv[2], default 1), as dtsim
// times a collective: every rank starts at the same simulated instant, and rank 0 prints when the last
// rank finished, counted from it, divided by R.
// A barrier alone would not do: ranks leave it at different times, and that skew would be timed too.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long elements = argc > 1 ? std::atol(argv[1]) : 1024;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 1;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<float> data(static_cast<std::size_t>(elements), static_cast<float>(rank + 1));
  MPI_Barrier(MPI_COMM_WORLD);
  // Rank 0 picks an instant well after every rank has left the barrier; all sleep until it (SMPI runs
  // nanosleep in simulated time).
  double start = MPI_Wtime() + 1e-3;
  MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const double wait = start - MPI_Wtime();
  const timespec pause{static_cast<time_t>(wait), static_cast<long>((wait - static_cast<time_t>(wait)) * 1e9)};
  nanosleep(&pause, nullptr);
  const double began = MPI_Wtime();
  for (int i = 0; i < repetitions; ++i) {
    MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(elements), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  double elapsed = (MPI_Wtime() - start) / repetitions;
  if (began - start > 1e-6 || began < start - 1e-6) std::fprintf(stderr, "rank %d started %.3g s off\n", rank, began - start);
  double slowest = 0.0;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%.9e\n", slowest);
  MPI_Finalize();
  return 0;
}
