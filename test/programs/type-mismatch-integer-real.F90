! mpiscope-test
! ranks: 2
! expect: type-mismatch lines 19,21
! bindings: mpi mpi_f08 mpifh
!
! Rank 0 sends four INTEGERs, rank 1 receives them as four REALs: same size, different types.
#include "mpiscope-fortran.h"
program type_mismatch_integer_real
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, ivals(4)
  real :: rvals(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  ivals = (/ 1, 2, 3, 4 /)
  if (rank == 0) then
    call MPI_Send(ivals, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(rvals, 4, MPI_REAL, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Finalize(ierr)
end program
