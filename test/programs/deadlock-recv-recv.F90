! mpiscope-test
! ranks: 2
! expect: deadlock lines 19
! bindings: mpi mpi_f08 mpifh
!
! Each rank receives from the other before sending: both wait in MPI_Recv forever (the program of issue 13).
#include "mpiscope-fortran.h"
program deadlock_recv_recv
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, other, buf(4)
  STATUS_T :: st

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  other = 1 - rank
  buf = rank
  call MPI_Recv(buf, 4, MPI_INTEGER, other, 0, MPI_COMM_WORLD, st, ierr)
  call MPI_Send(buf, 4, MPI_INTEGER, other, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
