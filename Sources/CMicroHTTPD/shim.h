/*
 * C edge of Gatehouse's HTTPServer module.
 *
 * libmicrohttpd's variadic entry points (MHD_start_daemon, MHD_get_connection_info,
 * MHD_get_daemon_info, MHD_set_connection_option) are unavailable from Swift, so the few calls the server needs are
 * wrapped here as small static inline functions taking plain values.
 */
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/** Everything the daemon is started with, as plain values (no varargs). */
typedef struct gh_daemon_settings {
    /** Bound address: a `struct sockaddr_in` or, with `use_ipv6`, a `struct sockaddr_in6`. */
    const struct sockaddr *bind_address;
    int use_ipv6;
    unsigned int thread_pool_size;
    unsigned int connection_timeout_seconds;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    size_t connection_memory_limit;
} gh_daemon_settings;

/** Called by MHD before parsing the request line; its result becomes `*con_cls`. */
typedef void *(*gh_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/**
 * Unescape callback that leaves text exactly as received: Swift decodes paths and queries
 * itself, strictly, instead of MHD's lenient "%HH" decoder.
 */
static inline size_t gh_keep_raw_unescaper(void *cls, struct MHD_Connection *connection, char *s) {
    (void)cls;
    (void)connection;
    return strlen(s);
}

/**
 * Starts a daemon with an internal polling thread (pool) using poll(), suspend/resume and
 * inter-thread signalling (needed by MHD_quiesce_daemon), with the limits in `settings`.
 * `cls` is handed to every callback. Returns NULL on failure (the reason goes to `logger`).
 */
static inline struct MHD_Daemon *gh_start_daemon(const gh_daemon_settings *settings,
                                                 MHD_AccessHandlerCallback handler,
                                                 MHD_RequestCompletedCallback completed,
                                                 gh_uri_log_callback uri_logger,
                                                 MHD_NotifyConnectionCallback connection_notifier,
                                                 MHD_LogCallback logger,
                                                 void *cls) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME
                       | MHD_USE_ERROR_LOG;
    /* poll(), not epoll: MHD 0.9.75 has an open race between MHD_quiesce_daemon and its epoll
     * loop on daemons with their own threads (both remove the listen FD from the epoll set; the
     * loser's ENOENT is an MHD_PANIC that aborts the process), and Gatehouse quiesces at every
     * shutdown. poll() has no such set to race on and still takes FDs past FD_SETSIZE. */
    flags |= MHD_USE_POLL;
    if (settings->use_ipv6) {
        flags |= MHD_USE_IPv6;
    }
    struct MHD_OptionItem options[] = {
        { MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)logger, cls },
        { MHD_OPTION_SOCK_ADDR, 0, (void *)settings->bind_address },
        { MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)settings->connection_timeout_seconds, NULL },
        { MHD_OPTION_CONNECTION_LIMIT, (intptr_t)settings->connection_limit, NULL },
        { MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)settings->per_ip_connection_limit, NULL },
        { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)settings->connection_memory_limit, NULL },
        { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, cls },
        { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_logger, cls },
        { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connection_notifier, cls },
        { MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)gh_keep_raw_unescaper, NULL },
        /* Must stay last: replaced by the end marker when no pool is wanted. */
        { MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)settings->thread_pool_size, NULL },
        { MHD_OPTION_END, 0, NULL },
    };
    if (settings->thread_pool_size <= 1) {
        size_t pool = sizeof(options) / sizeof(options[0]) - 2;
        options[pool].option = MHD_OPTION_END;
        options[pool].value = 0;
    }
    /* Port 0 here: the real port comes from the bound address. */
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, cls,
                            MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/** The port the daemon actually listens on (useful after binding port 0), or -1. */
static inline int gh_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (info == NULL) {
        return -1;
    }
    return (int)info->port;
}

/**
 * Writes the peer's IP address as text into `buffer` (at least INET6_ADDRSTRLEN bytes).
 * Returns 1 for a loopback peer (127.0.0.0/8, ::1, ::ffff:127.x.x.x), 0 for any other, -1 if
 * the address is unavailable.
 */
static inline int gh_client_address(struct MHD_Connection *connection, char *buffer, size_t length) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) {
        return -1;
    }
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)(const void *)address;
        if (inet_ntop(AF_INET, &v4->sin_addr, buffer, (socklen_t)length) == NULL) {
            return -1;
        }
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127 ? 1 : 0;
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)(const void *)address;
        if (inet_ntop(AF_INET6, &v6->sin6_addr, buffer, (socklen_t)length) == NULL) {
            return -1;
        }
        if (IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr)) {
            return 1;
        }
        return (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr) && v6->sin6_addr.s6_addr[12] == 127) ? 1 : 0;
    }
    return -1;
}

/** Sets one connection's idle timeout (MHD_set_connection_option is variadic). 0 on success. */
static inline int gh_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds) == MHD_YES ? 0 : -1;
}

/** The connection's socket, or -1. */
static inline int gh_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/** Bytes of the request line and header fields as received, blank line included; 0 before they are complete. */
static inline size_t gh_request_head_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/** Iterates the request's header fields (binary-safe lengths). */
static inline int gh_request_headers(struct MHD_Connection *connection,
                                     MHD_KeyValueIteratorN iterator, void *cls) {
    return MHD_get_connection_values_n(connection, MHD_HEADER_KIND, iterator, cls);
}

#endif
