! mpiscope-test
! ranks: 3
! expect: none
! bindings: mpi mpifh
!
! A commutative user op written in Fortran (MPI_Op_create with a LOGICAL commute flag), used by MPI_Allreduce
! and freed: the library calls the Fortran function as Fortran, with or without mpiscope.
#include "mpiscope-fortran.h"
program ok_user_op
  MPI_USE
  implicit none
  MPI_INCLUDE
  external :: int_sum
  integer :: ierr, rank, nprocs, op, x(3), y(3)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Op_create(int_sum, .true., op, ierr)
  x = rank + 1
  call MPI_Allreduce(x, y, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  if (any(y /= nprocs * (nprocs + 1) / 2)) print '(a,3i4)', 'wrong sum ', y
  call MPI_Op_free(op, ierr)
  call MPI_Finalize(ierr)
end program

subroutine int_sum(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype
  integer :: invec(len), inoutvec(len)
  inoutvec = inoutvec + invec
end subroutine
