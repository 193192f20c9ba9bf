! mpiscope-test
! ranks: 2
! expect: none
! bindings: mpi mpi_f08 mpifh
!
! MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, and request arrays completed by MPI_Waitany, MPI_Waitsome and
! MPI_Testall. The index MPI_Waitany returns is not used: MPICH 4.0's mpi_f08 makes it 0-based
! (pmodels/mpich#6270).
#include "mpiscope-fortran.h"
program ok_status_ignore_requests
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, parameter :: n = 3
  integer :: ierr, rank, peer, i, idx, outcount, got, vals(n), back(n), idxs(n)
  logical :: flag
  REQUEST_T :: reqs(n)
  STATUS_T :: st

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  vals = (/ (i * 10 + rank, i = 1, n) /)
  call MPI_Sendrecv(vals(1), 1, MPI_INTEGER, peer, 9, got, 1, MPI_INTEGER, peer, 9, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  do i = 1, n
    call MPI_Irecv(back(i), 1, MPI_INTEGER, peer, i, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  do i = 1, n
    call MPI_Send(vals(i), 1, MPI_INTEGER, peer, i, MPI_COMM_WORLD, ierr)
  end do
  do i = 1, n
    call MPI_Waitany(n, reqs, idx, st, ierr)
    if (TAG_OF(st) < 1 .or. TAG_OF(st) > n) print '(a,i0)', 'unexpected tag ', TAG_OF(st)
  end do
  if (sum(back) /= sum(vals) - n * rank + n * peer) print '(a)', 'wrong values'
  do i = 1, n
    call MPI_Irecv(back(i), 1, MPI_INTEGER, peer, 20 + i, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  do i = 1, n
    call MPI_Send(vals(i), 1, MPI_INTEGER, peer, 20 + i, MPI_COMM_WORLD, ierr)
  end do
  got = 0
  do while (got < n)
    call MPI_Waitsome(n, reqs, outcount, idxs, MPI_STATUSES_IGNORE, ierr)
    got = got + outcount
  end do
  do i = 1, n
    call MPI_Irecv(back(i), 1, MPI_INTEGER, peer, 40 + i, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do i = 1, n
    call MPI_Send(vals(i), 1, MPI_INTEGER, peer, 40 + i, MPI_COMM_WORLD, ierr)
  end do
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(n, reqs, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Recv(got, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Finalize(ierr)
end program
