! mpiscope-test
! ranks: 2
! expect: potential-deadlock lines 20
! bindings: mpi mpi_f08 mpifh
!
! Both ranks send one value before receiving: it completes only because the library buffers small
! standard-mode sends.
#include "mpiscope-fortran.h"
program potential_deadlock_send_send
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, peer
  double precision :: out, in

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  out = rank
  call MPI_Send(out, 1, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, ierr)
  call MPI_Recv(in, 1, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Finalize(ierr)
end program
