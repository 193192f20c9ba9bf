! mpiscope-test
! ranks: 2
! expect: unmatched-message lines 20
! bindings: mpi mpi_f08
!
! Rank 0 sends two messages with different tags; rank 1 receives only the first.
#include "mpiscope-fortran.h"
program unmatched_extra_message
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, a, b

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  a = 1
  b = 2
  if (rank == 0) then
    call MPI_Send(a, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierr)
    call MPI_Send(b, 1, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(a, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Finalize(ierr)
end program
