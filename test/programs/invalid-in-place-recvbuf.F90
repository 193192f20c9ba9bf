! mpiscope-test
! ranks: 2
! expect: invalid-argument lines 20
! bindings: mpi mpi_f08 mpifh
!
! MPI_IN_PLACE is allowed as the send buffer of MPI_Allreduce, never as its receive buffer (the Fortran
! MPI_IN_PLACE is a variable of the library's; the shim must still know it). MPI_ERRORS_RETURN lets
! every rank go on.
#include "mpiscope-fortran.h"
program invalid_in_place_recvbuf
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, value

  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  value = 1
  call MPI_Allreduce(value, MPI_IN_PLACE, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr == MPI_SUCCESS) print '(a,i0)', 'the library accepted MPI_IN_PLACE as recvbuf on rank ', rank
  call MPI_Finalize(ierr)
end program
