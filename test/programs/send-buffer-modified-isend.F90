! mpiscope-test
! ranks: 2
! expect: send-buffer-modified lines 19
! bindings: mpi mpi_f08
!
! Rank 0 overwrites the first element of a buffer whose send is still pending.
#include "mpiscope-fortran.h"
program send_buffer_modified_isend
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, data(4)
  REQUEST_T :: req

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  data = (/ 1, 2, 3, 4 /)
  if (rank == 0) then
    call MPI_Isend(data, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, req, ierr)
    data(1) = 99
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(data, 4, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Finalize(ierr)
end program
