# Run by tests/CMakeLists.txt (gdb -batch -x proxy_exit_in_release.gdb proxy_exit_program): see the
# program. As proxy_exit.gdb, but the exiting thread is stopped later, once it has taken its proxy's
# standing flag and is about to drop the reference (the window a writer cannot tell from done).
set pagination off
break own::detail::load_proxies::leave
break own_gdb_stored
run
# In the exiting thread: run it alone to the release of the standing reference.
set scheduler-locking on
tbreak own::detail::control_block::release_shared
continue
set var exiting_thread_stopped = 1
thread 1
continue
# Stopped in own_gdb_stored: the main thread has printed. Everything runs to the end.
set scheduler-locking off
delete
continue
