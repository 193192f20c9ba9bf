! mpiscope-test
! ranks: 3
! expect: resource-leak lines 17
! bindings: mpi mpi_f08 mpifh
!
! Every rank duplicates MPI_COMM_WORLD, uses the copy and never frees it: one leak at the MPI_Comm_dup,
! with a location on each rank.
#include "mpiscope-fortran.h"
program leak_comm_dup
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, total
  COMM_T :: private_world

  call MPI_Init(ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, private_world, ierr)
  call MPI_Comm_rank(private_world, rank, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, private_world, ierr)
  call MPI_Finalize(ierr)
end program
