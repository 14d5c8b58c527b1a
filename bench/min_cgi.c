/* min.cgi: the CGI benchmark's baseline. Reads CONTENT_LENGTH bytes of
 * body from stdin, as any CGI must, and answers 200 with a small JSON
 * body. The difference between it and wirehook.cgi is what verifying and
 * storing costs; its own rate is mostly process start-up through
 * mod_cgid. Bench-only: never installed. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MIN_CGI_MAX_BODY (1024L * 1024L)

int main(void)
{
    const char *cl = getenv("CONTENT_LENGTH");
    long want = cl ? strtol(cl, NULL, 10) : 0;
    long got = 0;
    char buf[8192];

    if (want < 0 || want > MIN_CGI_MAX_BODY)
        want = 0;
    while (got < want) {
        size_t chunk = (size_t)(want - got) < sizeof buf ? (size_t)(want - got) : sizeof buf;
        ssize_t n = read(0, buf, chunk);
        if (n <= 0)
            break;
        got += n;
    }
    printf("Status: 200 OK\r\nContent-Type: application/json\r\n\r\n{\"ok\":%ld}\n", got);
    return 0;
}
