// systemd's part in the guest's passthrough_fdstore case (the guest has no systemd): a notify
// socket with a file descriptor store, and a service it starts again whenever it exits.
//   fd-store NOTIFY_SOCKET LOG -- PROGRAM ARGS...
// It starts PROGRAM with NOTIFY_SOCKET set and the stored descriptors from fd 3 (LISTEN_FDS,
// LISTEN_FDNAMES, LISTEN_PID, as sd_listen_fds(3) reads them); it keeps what PROGRAM sends with
// FDSTORE=1 under its FDNAME, drops what FDSTOREREMOVE=1 names, and logs each step to LOG
// ("started PID N", "stored NAME", "removed NAME", "ready PID", "exited PID STATUS"). When
// PROGRAM exits it is started again after 200 ms (Restart=); SIGTERM stops PROGRAM, closes the
// store (a stop: systemd closes its copies) and exits.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#define MAX_STORED 32
static int stored_fd[MAX_STORED];
static char stored_name[MAX_STORED][256];
static int n_stored;
static FILE *logf;

static pid_t start(char **argv, const char *notify) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    // Moved out of the way first, then to 3, 4, ... in order.
    int high[MAX_STORED];
    for (int i = 0; i < n_stored; i++) high[i] = fcntl(stored_fd[i], F_DUPFD, 100);
    char names[MAX_STORED * 257] = "";
    for (int i = 0; i < n_stored; i++) {
        dup2(high[i], 3 + i);
        close(high[i]);
        if (i) strcat(names, ":");
        strcat(names, stored_name[i]);
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%d", n_stored);
    setenv("LISTEN_FDS", buf, 1);
    setenv("LISTEN_FDNAMES", names, 1);
    snprintf(buf, sizeof buf, "%d", (int)getpid());
    setenv("LISTEN_PID", buf, 1);
    setenv("NOTIFY_SOCKET", notify, 1);
    execvp(argv[0], argv);
    _exit(127);
}

static void drop(const char *which) {
    char name[256];
    snprintf(name, sizeof name, "%s", which);  // `which` may be a stored name, moved below
    for (int i = 0; i < n_stored;) {
        if (strcmp(stored_name[i], name) == 0) {
            close(stored_fd[i]);
            n_stored--;
            if (i != n_stored) {
                stored_fd[i] = stored_fd[n_stored];
                memcpy(stored_name[i], stored_name[n_stored], sizeof stored_name[i]);
            }
            fprintf(logf, "removed %s\n", name);
        } else {
            i++;
        }
    }
}

// One notification: its lines, and the descriptors that came with it.
static void notified(int sock) {
    char text[4096];
    union { struct cmsghdr align; char bytes[CMSG_SPACE(16 * sizeof(int))]; } control;
    struct iovec iov = {.iov_base = text, .iov_len = sizeof text - 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0) return;
    text[n] = 0;
    int fds[16], nfds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < k && nfds < 16; i++) memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    }
    const char *name = "stored";
    int store = 0, remove = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strcmp(line, "FDSTORE=1") == 0) store = 1;
        else if (strcmp(line, "FDSTOREREMOVE=1") == 0) remove = 1;
        else if (strncmp(line, "FDNAME=", 7) == 0) name = line + 7;
        else if (strcmp(line, "READY=1") == 0) fprintf(logf, "ready\n");
    }
    if (remove) drop(name);
    for (int i = 0; i < nfds; i++) {
        if (store && n_stored < MAX_STORED && strlen(name) < 256) {
            stored_fd[n_stored] = fds[i];
            strcpy(stored_name[n_stored++], name);
            fprintf(logf, "stored %s\n", name);
        } else {
            close(fds[i]);
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: fd-store NOTIFY_SOCKET LOG -- PROGRAM ARGS...\n");
        return 2;
    }
    logf = fopen(argv[2], "ae");  // (close-on-exec: not the service's fd 3)
    if (!logf) return 1;
    setvbuf(logf, NULL, _IOLBF, 0);
    int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", argv[1]);
    unlink(argv[1]);
    if (bind(sock, (struct sockaddr *)&addr, sizeof addr) < 0) { perror("bind"); return 1; }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    pid_t child = start(argv + 4, argv[1]);
    fprintf(logf, "started %d %d\n", (int)child, n_stored);
    int stopping = 0;
    for (;;) {
        struct pollfd p[2] = {{.fd = sock, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
        if (poll(p, 2, -1) < 0) continue;
        if (p[0].revents & POLLIN) notified(sock);
        if (!(p[1].revents & POLLIN)) continue;
        struct signalfd_siginfo si;
        if (read(sfd, &si, sizeof si) != sizeof si) continue;
        if (si.ssi_signo == SIGTERM) {
            stopping = 1;
            if (child > 0) kill(child, SIGTERM);
        }
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            fprintf(logf, "exited %d %d\n", (int)pid, status);
            if (pid == child) child = 0;
        }
        if (child == 0 && stopping) {
            while (n_stored > 0) drop(stored_name[0]);
            fprintf(logf, "stopped\n");
            return 0;
        }
        if (child == 0) {
            usleep(200000);
            while (poll(p, 1, 0) > 0 && (p[0].revents & POLLIN)) notified(sock);  // what it sent before it ended
            child = start(argv + 4, argv[1]);
            fprintf(logf, "started %d %d\n", (int)child, n_stored);
        }
    }
}
