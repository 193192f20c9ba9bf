! mpiscope-test
! ranks: 3
! expect: deadlock lines 20
! bindings: mpi mpi_f08
!
! A ring where every rank first receives from its left neighbour: nobody ever sends.
#include "mpiscope-fortran.h"
program deadlock_ring_recv_first
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, nprocs, left, right
  double precision :: token

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  call MPI_Recv(token, 1, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  token = token + 1.0d0
  call MPI_Send(token, 1, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
