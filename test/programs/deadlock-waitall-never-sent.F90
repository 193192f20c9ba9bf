! mpiscope-test
! ranks: 2
! expect: deadlock lines 22,26
! bindings: mpi mpi_f08 mpifh
!
! Rank 0 waits for a receive and a send together (a request array), but rank 1 only takes rank 0's
! message and never sends the reply; it waits in a barrier that rank 0 never reaches.
#include "mpiscope-fortran.h"
program deadlock_waitall_never_sent
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, out, in
  REQUEST_T :: reqs(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  out = 7
  if (rank == 0) then
    call MPI_Irecv(in, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(out, 1, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  else
    call MPI_Recv(in, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
