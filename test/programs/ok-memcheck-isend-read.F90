! mpiscope-test
! ranks: 2
! mode: memcheck
! expect: none
! bindings: mpi mpi_f08 mpifh
!
! The correct twin of local-concurrency-isend-store.F90: rank 0 only reads its send buffer while the send is
! pending, and writes it after MPI_Wait; rank 1 reads its receive buffer after MPI_Wait.
#include "mpiscope-fortran.h"
program ok_memcheck_isend_read
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, i
  double precision :: field(8), total
  REQUEST_T :: req

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  field = 1.0d0
  total = 0.0d0
  if (rank == 0) then
    call MPI_Isend(field, 8, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, req, ierr)
    do i = 1, 8
      total = total + field(i)
    end do
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    field = 2.0d0
  else
    call MPI_Irecv(field, 8, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    total = sum(field)
  end if
  print *, total
  call MPI_Finalize(ierr)
end program
