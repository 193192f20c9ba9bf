! mpiscope-test
! ranks: 2
! mode: memcheck
! expect: local-concurrency lines 21,22
! bindings: mpi mpi_f08 mpifh
!
! Rank 1 reads an element of its receive buffer before MPI_Wait completed the receive.
#include "mpiscope-fortran.h"
program lc_irecv_read
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, early
  integer :: buf(4), msg(4)
  REQUEST_T :: req

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = 0
  if (rank == 1) then
    call MPI_Irecv(buf, 4, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, req, ierr)
    early = buf(3)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    print *, early, buf(3)
  else
    msg = (/ 1, 2, 3, 4 /)
    call MPI_Send(msg, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
