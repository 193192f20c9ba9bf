! mpiscope-test
! ranks: 2
! expect: deadlock lines 18
! bindings: mpi mpi_f08 mpifh
!
! Both ranks make a synchronous send first: each waits for a receive the other never reaches.
#include "mpiscope-fortran.h"
program deadlock_ssend_ssend
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, other, out(2), in(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  other = 1 - rank
  out = rank
  call MPI_Ssend(out, 2, MPI_INTEGER, other, 0, MPI_COMM_WORLD, ierr)
  call MPI_Recv(in, 2, MPI_INTEGER, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Finalize(ierr)
end program
