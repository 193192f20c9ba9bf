! mpiscope-test
! ranks: 3
! expect: none
! bindings: mpi mpi_f08 mpifh
!
! Collectives with MPI_IN_PLACE where MPI allows it: Allreduce everywhere, Reduce and Gather at the root.
#include "mpiscope-fortran.h"
program ok_in_place_collectives
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, nprocs
  double precision :: x(4), part(3)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  x = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Reduce(x, x, 4, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  end if
  part = 0
  part(rank + 1) = rank * 10
  if (rank == 0) then
    call MPI_Gather(MPI_IN_PLACE, 1, MPI_DOUBLE_PRECISION, part, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    print '(a,3f6.1)', 'gathered ', part
  else
    call MPI_Gather(part(rank + 1), 1, MPI_DOUBLE_PRECISION, part, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
