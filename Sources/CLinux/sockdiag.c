// The owner of a local TCP socket, asked of the kernel through sock_diag (NETLINK_SOCK_DIAG,
// what `ss -e` reads): the web bridge learns which user opened the connection a page came in on.
// C because the netlink message is built and walked with the NLMSG_* macros.
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int cl_tcp_socket_uid(int family, const uint8_t *src, uint16_t sport, const uint8_t *dst, uint16_t dport, uint32_t *uid) {
    if (family != AF_INET && family != AF_INET6) return -EAFNOSUPPORT;
    size_t len = family == AF_INET ? 4 : 16;
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) return -errno;
    struct timeval tv = {.tv_sec = 1, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);

    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 req;
    } msg;
    memset(&msg, 0, sizeof msg);
    msg.nlh.nlmsg_len = sizeof msg;
    msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    // Not NLM_F_DUMP: the one socket whose local end is src:sport and remote end dst:dport.
    msg.nlh.nlmsg_flags = NLM_F_REQUEST;
    msg.nlh.nlmsg_seq = 1;
    msg.req.sdiag_family = (uint8_t)family;
    msg.req.sdiag_protocol = IPPROTO_TCP;
    msg.req.idiag_states = ~0u;
    msg.req.id.idiag_sport = htons(sport);
    msg.req.id.idiag_dport = htons(dport);
    memcpy(msg.req.id.idiag_src, src, len);
    memcpy(msg.req.id.idiag_dst, dst, len);
    msg.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(fd, &msg, sizeof msg, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    // Aligned for the nlmsghdr and inet_diag_msg the kernel writes into it.
    uint64_t buffer[1024];
    // An interrupted recv returns -EINTR: the caller (PeerIdentity.owner) asks again.
    ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    int result = -ENOENT;
    if (n < 0) result = -errno;
    for (struct nlmsghdr *h = (struct nlmsghdr *)buffer; n > 0 && NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
        if (h->nlmsg_type == NLMSG_ERROR) {
            struct nlmsgerr *err = NLMSG_DATA(h);
            result = err->error < 0 ? err->error : -ENOENT;
            break;
        }
        if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
            struct inet_diag_msg *d = NLMSG_DATA(h);
            *uid = d->idiag_uid;
            result = 0;
            break;
        }
    }
    close(fd);
    return result;
}
