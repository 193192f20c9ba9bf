! mpiscope-test
! ranks: 2
! expect: deadlock lines 16
! bindings: mpifh
!
! The Recv/Recv deadlock in fixed-form FORTRAN 77 style with mpif.h, as
! older codes are written: the location is this .f file's line.
      program dlfix
      implicit none
      include 'mpif.h'
      integer ierr, rank, other, buf(4), st(MPI_STATUS_SIZE)
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      other = 1 - rank
      buf(1) = rank
      call MPI_Recv(buf,4,MPI_INTEGER,other,0,MPI_COMM_WORLD,st,ierr)
      call MPI_Send(buf,4,MPI_INTEGER,other,0,MPI_COMM_WORLD,ierr)
      call MPI_Finalize(ierr)
      end
