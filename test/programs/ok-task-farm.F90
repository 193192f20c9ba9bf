! mpiscope-test
! ranks: 3
! expect: none
! bindings: mpi mpi_f08
!
! A master hands out tasks and collects results with one MPI_ANY_SOURCE receive in a loop (the results are
! interchangeable: same tag, same size, one call), answering each worker with its next task or a stop.
#include "mpiscope-fortran.h"
program ok_task_farm
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, parameter :: ntasks = 9, tag_work = 1, tag_stop = 2
  integer :: ierr, rank, nprocs, next, done, task, w
  double precision :: result, total
  STATUS_T :: st

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (rank == 0) then
    next = 1
    do w = 1, nprocs - 1
      call MPI_Send(next, 1, MPI_INTEGER, w, tag_work, MPI_COMM_WORLD, ierr)
      next = next + 1
    end do
    total = 0
    do done = 1, ntasks
      call MPI_Recv(result, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, tag_work, MPI_COMM_WORLD, st, ierr)
      total = total + result
      if (next <= ntasks) then
        call MPI_Send(next, 1, MPI_INTEGER, SOURCE_OF(st), tag_work, MPI_COMM_WORLD, ierr)
        next = next + 1
      else
        call MPI_Send(next, 1, MPI_INTEGER, SOURCE_OF(st), tag_stop, MPI_COMM_WORLD, ierr)
      end if
    end do
    print '(a,f8.1)', 'total ', total
  else
    do
      call MPI_Recv(task, 1, MPI_INTEGER, 0, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
      if (TAG_OF(st) == tag_stop) exit
      result = task * 2.0d0
      call MPI_Send(result, 1, MPI_DOUBLE_PRECISION, 0, tag_work, MPI_COMM_WORLD, ierr)
    end do
  end if
  call MPI_Finalize(ierr)
end program
