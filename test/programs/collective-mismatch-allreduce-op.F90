! mpiscope-test
! ranks: 3
! expect: collective-mismatch lines 17,19
! bindings: mpi mpi_f08
!
! Rank 0 asks for the maximum and the others for the sum.
#include "mpiscope-fortran.h"
program collective_mismatch_allreduce_op
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, result

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call MPI_Allreduce(rank, result, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  else
    call MPI_Allreduce(rank, result, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
