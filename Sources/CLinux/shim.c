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

// posix_spawn (posix_spawnp when `search`: `path` looked up in PATH) with stdin from /dev/null,
// an empty signal mask and default dispositions (the daemon blocks its signals and ignores
// SIGPIPE: a child must not inherit that), `fd` copied to
// each of `targets` (dup2 clears close-on-exec on the copy), every fd from `close_from` up
// closed, and `flags` besides (POSIX_SPAWN_SETSID: a session of its own).
static int spawn_in(const char *path, int search, char *const argv[], char *const envp[], int fd, const int *targets,
                    int n_targets, const char *dir, int close_from, short flags, pid_t *pid);

static int spawn(const char *path, char *const argv[], char *const envp[], int fd, const int *targets, int n_targets,
                 const char *dir, int close_from, short flags, pid_t *pid) {
    return spawn_in(path, 0, argv, envp, fd, targets, n_targets, dir, close_from, flags, pid);
}

static int spawn_in(const char *path, int search, char *const argv[], char *const envp[], int fd, const int *targets,
                    int n_targets, const char *dir, int close_from, short flags, pid_t *pid) {
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
    for (int i = 0; rc == 0 && i < n_targets; i++) rc = posix_spawn_file_actions_adddup2(&fa, fd, targets[i]);
    if (rc == 0 && dir) rc = posix_spawn_file_actions_addchdir_np(&fa, dir);
    // Nothing else of the parent's: an fd a library opened without O_CLOEXEC, or one the
    // daemon's own parent leaked to it, must not reach a child.
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&fa, close_from);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | flags);
    if (rc == 0) rc = search ? posix_spawnp(pid, path, &fa, &attr, argv, envp) : posix_spawn(pid, path, &fa, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

int cl_spawn(const char *path, char *const argv[], char *const envp[], int out_fd, pid_t *pid) {
    static const int outputs[] = {1, 2};
    return spawn(path, argv, envp, out_fd, outputs, 2, "/", 3, POSIX_SPAWN_SETSID, pid);
}

int cl_spawn_runner(const char *path, char *const argv[], int fd, pid_t *pid) {
    // fd is never 3 itself (0-2 are open and the pair was made after them), so the copy is made
    // and loses close-on-exec; the daemon's stdout and stderr (the journal) stay the runner's.
    static const int runner[] = {3};
    return spawn(path, argv, environ, fd, runner, 1, NULL, 4, 0, pid);
}

int cl_spawn_child(const char *path, char *const argv[], pid_t *pid) {
    // The caller's stdout and stderr, environment, directory and session; looked up in PATH.
    return spawn_in(path, 1, argv, environ, -1, NULL, 0, NULL, 3, 0, pid);
}

int cl_reap(int *exit_code, int *signal) {
    int status = 0;
    // EINTR is retried by the caller (Posix.reap), as every call's.
    pid_t pid = waitpid(-1, &status, WNOHANG);
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
