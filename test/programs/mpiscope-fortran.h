! One Fortran corpus program, three bindings (test/programs/README.md, "Fortran programs"): the test
! compiles each .F90 with one of MPISCOPE_USE_MPI, MPISCOPE_USE_MPI_F08 or MPISCOPE_MPIFH defined, and this
! file turns the few places where the bindings differ into macros. Calls read the same in all three (mpi_f08
! takes the optional ierror too). Included by the preprocessor, so the program's own line numbers are kept.
#if defined(MPISCOPE_USE_MPI_F08)
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define COMM_T type(MPI_Comm)
#define REQUEST_T type(MPI_Request)
#define DATATYPE_T type(MPI_Datatype)
#define WIN_T type(MPI_Win)
#define STATUS_T type(MPI_Status)
#define STATUSES_T(n) type(MPI_Status), dimension(n)
#define SOURCE_OF(st) st%MPI_SOURCE
#define TAG_OF(st) st%MPI_TAG
#elif defined(MPISCOPE_MPIFH)
#define MPI_USE
#define MPI_INCLUDE include 'mpif.h'
#define COMM_T integer
#define REQUEST_T integer
#define DATATYPE_T integer
#define WIN_T integer
#define STATUS_T integer, dimension(MPI_STATUS_SIZE)
#define STATUSES_T(n) integer, dimension(MPI_STATUS_SIZE, n)
#define SOURCE_OF(st) st(MPI_SOURCE)
#define TAG_OF(st) st(MPI_TAG)
#else
#define MPI_USE use mpi
#define MPI_INCLUDE
#define COMM_T integer
#define REQUEST_T integer
#define DATATYPE_T integer
#define WIN_T integer
#define STATUS_T integer, dimension(MPI_STATUS_SIZE)
#define STATUSES_T(n) integer, dimension(MPI_STATUS_SIZE, n)
#define SOURCE_OF(st) st(MPI_SOURCE)
#define TAG_OF(st) st(MPI_TAG)
#endif
