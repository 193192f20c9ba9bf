! mpiscope-test
! ranks: 2
! expect: none
! bindings: mpi mpi_f08 mpifh
!
! A communicator made by MPI_Comm_idup (usable once its request completed) carries a struct type built
! from a datatype array and MPI_ADDRESS_KIND displacements; both are freed.
#include "mpiscope-fortran.h"
program ok_idup_struct
  MPI_USE
  implicit none
  MPI_INCLUDE
  type pair
    sequence
    integer :: i
    double precision :: d
  end type pair
  type(pair) :: p
  integer :: ierr, rank, blocklens(2)
  integer(kind=MPI_ADDRESS_KIND) :: displs(2), base, addr
  DATATYPE_T :: types(2), pair_t
  COMM_T :: dup
  REQUEST_T :: req

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_idup(MPI_COMM_WORLD, dup, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Get_address(p%i, base, ierr)
  call MPI_Get_address(p%d, addr, ierr)
  blocklens = 1
  displs(1) = 0
  displs(2) = addr - base
  types(1) = MPI_INTEGER
  types(2) = MPI_DOUBLE_PRECISION
  call MPI_Type_create_struct(2, blocklens, displs, types, pair_t, ierr)
  call MPI_Type_commit(pair_t, ierr)
  if (rank == 0) then
    p%i = 7
    p%d = 2.5d0
    call MPI_Send(p, 1, pair_t, 1, 0, dup, ierr)
  else
    call MPI_Recv(p, 1, pair_t, 0, 0, dup, MPI_STATUS_IGNORE, ierr)
    if (p%i /= 7 .or. p%d /= 2.5d0) print '(a)', 'wrong pair'
  end if
  call MPI_Type_free(pair_t, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Finalize(ierr)
end program
