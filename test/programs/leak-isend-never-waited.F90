! mpiscope-test
! ranks: 2
! expect: resource-leak lines 19
! bindings: mpi mpi_f08
!
! Rank 0 starts a nonblocking send and never completes its request; rank 1 receives the message.
#include "mpiscope-fortran.h"
program leak_isend_never_waited
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, value
  REQUEST_T :: req

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  value = 42
  if (rank == 0) then
    call MPI_Isend(value, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, req, ierr)
  else
    call MPI_Recv(value, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
