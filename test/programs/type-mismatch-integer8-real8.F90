! mpiscope-test
! ranks: 2
! expect: type-mismatch lines 20,22
! bindings: mpi mpi_f08
!
! Size-specific types: rank 0 sends INTEGER(8) values as MPI_INTEGER8, rank 1 receives them as MPI_REAL8.
#include "mpiscope-fortran.h"
program type_mismatch_integer8_real8
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank
  integer(8) :: counts(3)
  real(8) :: values(3)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  counts = (/ 10_8, 20_8, 30_8 /)
  if (rank == 0) then
    call MPI_Send(counts, 3, MPI_INTEGER8, 1, 5, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(values, 3, MPI_REAL8, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Finalize(ierr)
end program
