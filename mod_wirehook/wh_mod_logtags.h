/* wirehook's log message tags: "WH" and five digits, wirehook's own
 * sequence. httpd's own message numbers are handed out by httpd's
 * docs/log-message-tags/next-number for httpd's messages, so a module
 * borrowing them would one day collide with httpd itself.
 *
 * This list is the registry: every tag the module logs is here exactly
 * once, with what it means, and every number is used at exactly one call
 * site (tests/integration/test_logtags.sh checks both, and the enum in
 * mod_wirehook.c refuses to compile a number listed twice). A new message
 * takes WH_LOGTAG_NEXT and bumps it. Numbers are never reused: a message
 * that goes away leaves its number retired (kept here, marked so). */
#ifndef WH_MOD_LOGTAGS_H
#define WH_MOD_LOGTAGS_H

#define WHLOGNO(n) "WH" #n ": "

#define WH_LOGTAGS(X)                                                         \
    X(00901, "startup, apache2 -t: a credentials or inbox file is open to others, or holds a mistake") \
    X(00902, "child start: the inbox mutex cannot be created")                \
    X(00904, "the application answered 5xx: id removed from the replay store") \
    X(00910, "a message of the verification core, about a request")          \
    X(00911, "a notification was accepted")                                   \
    X(00912, "a notification was rejected, with its code and reason")         \
    X(00913, "a message of the verification core, outside a request")        \
    X(00914, "a client-sent Wirehook-* request header was removed")          \
    X(00920, "reading the request body failed in a lower filter")            \
    X(00921, "the body passed MaxBodySize while it was read")                 \
    X(00930, "pre-config: the replay mutex type cannot be registered")       \
    X(00931, "check-config: a ReplayCache dbm/shmcb module is not loaded")    \
    X(00932, "post-config: a ReplayCache provider is not loaded")             \
    X(00933, "post-config: a ReplayCache provider refused its arguments")    \
    X(00934, "post-config: the replay mutex cannot be created")              \
    X(00935, "post-config: a ReplayCache cannot be initialised")             \
    X(00936, "child start: the replay mutex cannot be re-attached")          \
    X(00937, "the replay store is not usable in this process")                           \
    X(00938, "retired: the replay mutex cannot be locked (now WH00940)")                             \
    X(00939, "retired: storing an id in a mod_socache store failed (WH00940)")          \
    X(00940, "claiming a notificationId in the replay store failed")       \
    X(00941, "retired: the replay mutex cannot be unlocked")                           \
    X(00942, "a duplicate notification was answered, not delivered")         \
    X(00943, "forgetting a claim after a 5xx failed")       \
    X(00944, "a copy arrived while another copy's delivery was under way: 503") \
    X(00945, "confirming a claim in the replay store failed")                \
    X(00946, "retired: lmdb: a claim cannot be confirmed (now WH00945)")      \
    X(00950, "the inbox cannot be opened")                                    \
    X(00951, "SetHandler wirehook without a WirehookConfig")                  \
    X(00952, "a POST reached the inbox handler unverified")                   \
    X(00953, "the inbox answered a verified notification")                    \
    X(00954, "startup: one problem of a WirehookConfig file")                 \
    X(00955, "a subrequest into a protected context was refused")            \
    X(00956, "a request was verified at the handler (the guard)")            \
    X(00957, "the replay store lost its epoch marker: emptied while running") \
    X(00958, "post-config: the replay ledger's shared memory failed")        \
    X(00959, "post-config: the dbm replay store cannot be written")          \
    X(00960, "startup: a dbm replay store without a marker (new or lost)")   \
    X(00961, "startup: the dbm replay store is in a RAM file system")        \
    X(00962, "startup (debug): what a replay store guarantees")              \
    X(00963, "retired: the epoch marker cannot be read or written (WH00940)") \
    X(00964, "refused: signed before the replay store's memory began")       \
    X(00965, "refused: the fixed-size replay store is full")                  \
    X(00966, "check-config: a ReplayCache that cannot keep the promise")      \
    X(00967, "startup: the status counters' shared memory cannot be created") \
    X(00968, "startup: a configuration gets no status counters (full, long path)") \
    X(00969, "startup: status counters of another layout, started again")     \
    X(00970, "an error document pointed at the inbox was refused")            \
    X(00971, "ReplayCache lmdb: its files cannot be given to httpd's User")   \
    X(00972, "ReplayCache lmdb: not synced and marked clean at a stop")      \
    X(00973, "ReplayCache lmdb: the path is invalid")                         \
    X(00974, "ReplayCache lmdb: the store cannot be prepared at startup")    \
    X(00975, "ReplayCache lmdb: a new store was created")                     \
    X(00976, "ReplayCache lmdb: the file was gone; 503 for the tolerance")   \
    X(00977, "ReplayCache lmdb: an untrusted file was discarded; 503 ...")   \
    X(00978, "ReplayCache lmdb: a child cannot open the store")               \
    X(00979, "retired: lmdb: an id cannot be removed (now WH00943)")          \
    X(00980, "ReplayCache lmdb: full; a new id is refused, nothing evicted") \
    X(00981, "retired: a mod_socache store's lookup failed (now WH00940)")   \
    X(00982, "ReplayCache lmdb: its file is in a RAM file system")           \
    X(00983, "console: an operator's action was taken")                      \
    X(00984, "console: an action was refused (token, origin, role)")          \
    X(00985, "console: refused, reached without an authenticated user")      \
    X(00986, "check-config: a console anyone can reach without a login")     \
    X(00987, "check-config: a console without WirehookConfig in its Location") \
    X(00988, "startup: the console's actions are not protected apart")       \
    X(00989, "startup: no readers: the bank's credentials read the inbox")   \
    X(00990, "console: SetHandler wirehook-console is not configured")      \
    X(00991, "an id recorded after its timestamp's tolerance: taken back, 503") \
    X(00992, "startup: the module's version and how many configurations it loaded")  \
    X(00993, "startup: one line per configuration: its replay store and inbox")       \
    X(00994, "check-config: a replay store file on a network file system")  \
    X(00995, "refused: an application reached under an inbox-only configuration")    \
    X(00996, "child start: a shared replay store cannot be set up")          \
    X(00997, "child start: no random bytes for the claims' holder tokens")   \
    X(00998, "a running delivery's claim could not be renewed, or lapsed")   \
    X(00999, "child start: the claims' renewal thread cannot start")          \
    X(01000, "check-config: SetHandler wirehook that no WirehookConfig reaches") \
    X(01001, "check-config: the same, unless a Directory, Files or If section gives one") \
    X(01002, "a claim nobody held released, or a delivery confirmed, once the store answered again; or one not remembered") \
    X(01003, "console: refused, a Host that is none of the server's names") \
    X(01004, "check-config: an SQLite inbox on a network file system")

#define WH_LOGTAG_NEXT 01005

#endif
