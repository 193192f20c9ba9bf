! mpiscope-test
! ranks: 2
! expect: potential-deadlock warning lines 22
! bindings: mpi mpi_f08 mpifh
!
! Both ranks start a send with MPI_Isend and wait for it before receiving: a standard-mode send completed
! by MPI_Wait returns only once MPI buffered it or the receive was posted, so this completes only because
! the library buffers the small message.
#include "mpiscope-fortran.h"
program potential_deadlock_isend_wait
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, peer
  REQUEST_T :: req
  double precision :: out, in

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  out = rank
  call MPI_Isend(out, 1, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Recv(in, 1, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Finalize(ierr)
end program
