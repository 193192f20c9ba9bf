! mpiscope-test
! ranks: 2
! expect: none
! bindings: mpi mpi_f08
!
! Persistent requests started with MPI_Startall and completed with MPI_Waitall, then freed; an
! MPI_Probe before a receive sized from the status.
#include "mpiscope-fortran.h"
program ok_persistent_ping_pong
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, peer, it, n
  double precision :: out(8), in(8)
  REQUEST_T :: reqs(2)
  STATUS_T :: st

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  out = rank
  call MPI_Send_init(out, 8, MPI_DOUBLE_PRECISION, peer, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Recv_init(in, 8, MPI_DOUBLE_PRECISION, peer, 4, MPI_COMM_WORLD, reqs(2), ierr)
  do it = 1, 4
    call MPI_Startall(2, reqs, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    out = out + in
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  if (rank == 0) then
    call MPI_Send(out, 5, MPI_DOUBLE_PRECISION, 1, 6, MPI_COMM_WORLD, ierr)
  else
    call MPI_Probe(0, 6, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n, ierr)
    call MPI_Recv(in, n, MPI_DOUBLE_PRECISION, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Finalize(ierr)
end program
