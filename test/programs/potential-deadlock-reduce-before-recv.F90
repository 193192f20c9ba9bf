! mpiscope-test
! ranks: 2
! expect: potential-deadlock warning lines 22,25
! bindings: mpi mpi_f08 mpifh
!
! Rank 0 contributes to a reduction rooted at rank 1 and then sends it a token; rank 1 receives the token
! before the reduction. A non-root of MPI_Reduce may return early, so the run completes; where it does not,
! rank 0 waits in MPI_Reduce for rank 1, which waits in MPI_Recv for rank 0.
#include "mpiscope-fortran.h"
program potential_deadlock_reduce_before_recv
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, token
  double precision :: v, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  v = rank + 1
  token = 0
  if (rank == 0) then
    call MPI_Reduce(v, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 1, MPI_COMM_WORLD, ierr)
    call MPI_Send(token, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(token, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Reduce(v, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 1, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
