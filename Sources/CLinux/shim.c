// Most of CLinux is headers only (include/CLinux.h). Process spawning and reaping are here:
// they need glibc's posix_spawn extensions (_GNU_SOURCE), which the header must not turn on.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int cl_spawn(const char *path, char *const argv[], char *const envp[], int out_fd, pid_t *pid) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attr);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (rc == 0) rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
    if (rc == 0) rc = posix_spawn_file_actions_addchdir_np(&fa, "/");
    // Nothing else of the daemon's: an fd a library opened without O_CLOEXEC, or one the
    // daemon's own parent leaked to it, must not reach a command.
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
    if (rc == 0) rc = posix_spawn(pid, path, &fa, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

int cl_spawn_runner(const char *path, char *const argv[], int fd, pid_t *pid) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attr);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (rc == 0) rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    // dup2 clears close-on-exec on the copy; when fd is already 3 it would not, so it never is
    // (the daemon's fds 0-2 are open, and the socket pair was made after them).
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, fd, 3);
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&fa, 4);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (rc == 0) rc = posix_spawn(pid, path, &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

int cl_reap(int *exit_code, int *signal) {
    int status = 0;
    pid_t pid;
    do {
        pid = waitpid(-1, &status, WNOHANG);
    } while (pid < 0 && errno == EINTR);
    if (pid <= 0) return pid < 0 ? -1 : 0;
    *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return pid;
}

int cl_output_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    int flags = fcntl(fds[0], F_GETFL);
    if (flags < 0 || fcntl(fds[0], F_SETFL, flags | O_NONBLOCK) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    return 0;
}
