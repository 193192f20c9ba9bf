! mpiscope-test
! ranks: 2
! expect: collective-mismatch lines 18
! bindings: mpi mpi_f08 mpifh
!
! Each rank names itself as the root of the broadcast: both "roots" send and return, and the
! broadcast delivered nothing.
#include "mpiscope-fortran.h"
program collective_mismatch_bcast_root
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, value

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  value = rank
  call MPI_Bcast(value, 1, MPI_INTEGER, rank, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
