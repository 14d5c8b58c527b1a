/* wirehook inbox purge|vacuum|backup: keeping the inbox through the
 * years (docs/inbox.md, "Retention", "Space", "Backup and restore"). */
#include "inbox_cmd.h"
#include "forward/wh_forward_purge.h"
#include "inbox/wh_inbox_backup.h"
#include "inbox/wh_inbox_purge.h"

#include <apr_strings.h>
#include <stdio.h>

#define PAGE_BYTES 4096.0

static const char *mib(apr_pool_t *p, double bytes)
{
    return apr_psprintf(p, "%.1f MiB", bytes / (1024.0 * 1024.0));
}

static void print_last(wh_inbox_args *a)
{
    wh_inbox_purge_record r;
    int found = wh_inbox_last_purge(a->ib, a->p, &r);

    if (found == 0)
        printf("last purge: none yet\n");
    else if (found > 0)
        printf("last purge: %s, events=%" APR_INT64_T_FMT " (dead letters %"
               APR_INT64_T_FMT ") quarantine=%" APR_INT64_T_FMT " auth-cache=%"
               APR_INT64_T_FMT "\n", wh_inbox_time(a->p, r.finished_at), r.events,
               r.dead_letters, r.quarantine, r.auth_cache);
}

int wh_inbox_cmd_purge(wh_inbox_args *a)
{
    const wh_purge_guard *guard = NULL;
    wh_purge_opts o = { 0 };
    wh_purge_counts n;
    const char *err;
    int rc;

    if (!wh_purge_configured(a->cfg))
        printf("%s\n", wh_inbox_retention_note(a->p, a->cfg));
    if ((err = wh_fq_purge_guard(a->p, a->ib, a->cfg, &guard)) != NULL) {
        fprintf(stderr, "wirehook inbox: %s\n", err);
        return 1;
    }
    o.now = apr_time_now();
    o.dry_run = a->dry_run;
    o.guard = guard;
    rc = wh_inbox_purge(a->ib, a->p, a->cfg, &o, &n);
    printf("%s: events=%" APR_INT64_T_FMT " (dead letters %" APR_INT64_T_FMT
           ") quarantine=%" APR_INT64_T_FMT " auth-cache=%" APR_INT64_T_FMT
           "; kept for wirehook forward: %" APR_INT64_T_FMT "\n",
           a->dry_run ? "would purge" : "purged", n.events, n.dead_letters,
           n.quarantine, n.auth_cache, n.kept);
    if (n.behind)
        printf("older events wait for wirehook forward to take them in (is it "
               "running on this inbox?)\n");
    if (n.pages_freed)
        printf("space: %" APR_INT64_T_FMT " pages (%s) given back\n", n.pages_freed,
               mib(a->p, (double)n.pages_freed * PAGE_BYTES));
    if (n.pages_free && n.auto_vacuum != 2)
        printf("space: %" APR_INT64_T_FMT " free pages (%s) stay in the file for new "
               "events; `wirehook inbox vacuum` gives them back\n", n.pages_free,
               mib(a->p, (double)n.pages_free * PAGE_BYTES));
    print_last(a);
    if (rc != 0) {
        fprintf(stderr, "wirehook inbox: the inbox database failed during the purge "
                "(see above); what is printed was done\n");
        return 1;
    }
    return 0;
}

int wh_inbox_cmd_vacuum(wh_inbox_args *a)
{
    wh_inbox_vacuum_info v;
    const char *err = wh_inbox_vacuum(a->ib, a->p, &v);

    if (err) {
        fprintf(stderr, "wirehook inbox: %s\n", err);
        return 1;
    }
    printf("vacuumed: %" APR_INT64_T_FMT " pages (%s) -> %" APR_INT64_T_FMT
           " pages (%s)%s\n", v.pages_before, mib(a->p, (double)v.pages_before * PAGE_BYTES),
           v.pages_after, mib(a->p, (double)v.pages_after * PAGE_BYTES),
           v.auto_vacuum_before != 2 ? "; purges give space back from now on" : "");
    return 0;
}

int wh_inbox_cmd_backup(wh_inbox_args *a)
{
    wh_inbox_backup_info b;
    const char *err = wh_inbox_backup(a->ib, a->p, a->cfg, a->id, &b);

    if (err) {
        fprintf(stderr, "wirehook inbox: backup: %s\n", err);
        return 1;
    }
    printf("backup: %s, %" APR_INT64_T_FMT " events, %s, integrity ok\n", a->id,
           b.events, mib(a->p, (double)b.bytes));
    return 0;
}
