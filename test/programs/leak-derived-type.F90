! mpiscope-test
! ranks: 2
! expect: resource-leak lines 18
! bindings: mpi mpi_f08
!
! A derived datatype is created, committed and used, but never freed; the leak points at its creation.
#include "mpiscope-fortran.h"
program leak_derived_type
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, data(6)
  DATATYPE_T :: triple

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  data = 0
  call MPI_Type_contiguous(3, MPI_INTEGER, triple, ierr)
  call MPI_Type_commit(triple, ierr)
  if (rank == 0) then
    call MPI_Send(data, 2, triple, 1, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(data, 2, triple, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Finalize(ierr)
end program
