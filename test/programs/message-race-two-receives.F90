! mpiscope-test
! ranks: 3
! expect: message-race lines 18,22
! bindings: mpi mpi_f08
!
! Rank 0 takes two messages with MPI_ANY_SOURCE through two different receive calls that expect
! different things: which worker's message each call gets is decided by timing.
#include "mpiscope-fortran.h"
program message_race_two_receives
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, first, second

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call MPI_Recv(first, 1, MPI_INTEGER, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(second, 1, MPI_INTEGER, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    print '(a,i0,a,i0)', 'first ', first, ' then ', second
  else
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
