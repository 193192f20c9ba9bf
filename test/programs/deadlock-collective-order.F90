! mpiscope-test
! ranks: 2
! expect: collective-mismatch lines 21,24
! expect: deadlock lines 21,24
! bindings: mpi mpi_f08
!
! The two ranks call the same two collectives in opposite orders: rank 0 waits in the Allreduce for
! rank 1, which waits in the Barrier for rank 0.
#include "mpiscope-fortran.h"
program deadlock_collective_order
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank
  double precision :: x, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = rank
  if (rank == 0) then
    call MPI_Allreduce(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  else
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
