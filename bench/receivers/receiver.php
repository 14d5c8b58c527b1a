<?php
// The PHP receiver `make bench` measures against mod_wirehook: what a
// competent PHP developer would write for the bank's webhooks under
// Apache (mod_php, prefork), with the same checks in the same order and the
// same answers as wirehook (README, "How a notification is checked").
// Bench-only: never installed.
//
// Configuration: config.php beside this file (written by bench/run.sh)
// returns ['secrets' => [string, ...], 'htpasswd' => path], and 'sqlite'
// => path to store each notification (below); opcache keeps it compiled,
// so it costs no file read per request.
//
// Storing ('sqlite', the fcgid section's PHP): each accepted notification
// is inserted into an SQLite table in WAL mode with synchronous=FULL, one
// durable commit per notification as wirehook's inbox makes, through a
// persistent PDO connection per prefork child; the table's primary key
// on notificationId decides duplicates instead of APCu.
//
// Basic auth: password_verify() on the htpasswd bcrypt hash ({SHA} entries
// too), and a successful check cached in APCu for 60 s, keyed by SHA-256 of
// the credentials (what wirehook's AuthCacheTTL does per httpd process;
// APCu is shared by the prefork children, so this cache is if anything
// warmer than wirehook's). The expiry is fixed, not sliding.
// Replay protection: apcu_add() of the notificationId for 600 s
// (2 x tolerance, like ReplayWindow); an id already there is answered
// 200 {"status":"duplicate"} like wirehook.
//
// Differences from wirehook, all in PHP's favour (it does less):
// json_decode() keeps the last of duplicate member names instead of
// refusing them and accepts "\u0000" escapes; lengths are counted in
// characters with iconv_strlen() only when the byte length exceeds the
// limit (fewer characters than bytes); the NUL-in-string rule is left to
// json_decode. Every schema rule of shared/verify/wh_schema.c is below, field by
// field (see wh_schema_rules()).

const WH_TOLERANCE = 300;
const WH_MAX_BODY = 65536;
const WH_MAX_NESTING = 32;
const WH_AUTH_TTL = 60;
const WH_REPLAY_TTL = 600;
const WH_UUID = '/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/';
const WH_KNOWN_STATUSES = ['Review', 'Send Ready', 'Reject', 'Error', 'Exception', 'Complete'];

function wh_send(int $status, array $body, array $headers = []): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    foreach ($headers as $h) {
        header($h);
    }
    echo json_encode($body, JSON_UNESCAPED_SLASHES), "\n";
}

function wh_fail(int $status, string $code, string $message, ?array $details = null, array $headers = []): void
{
    $error = ['code' => $code, 'message' => $message];
    if ($details !== null) {
        $error['details'] = $details;
    }
    wh_send($status, ['error' => $error], $headers);
}

function wh_htpasswd_ok(string $file, string $user, string $password): bool
{
    $fh = @fopen($file, 'r');
    if (!$fh) {
        return false;
    }
    $hash = null;
    while (($line = fgets($fh)) !== false) {
        $colon = strpos($line, ':');
        if ($colon !== false && substr($line, 0, $colon) === $user) {
            $hash = rtrim(substr($line, $colon + 1), "\r\n");
            break;
        }
    }
    fclose($fh);
    if ($hash === null) {
        return false;
    }
    if (str_starts_with($hash, '$2')) {
        return password_verify($password, $hash);
    }
    if (str_starts_with($hash, '{SHA}')) {
        return hash_equals(substr($hash, 5), base64_encode(sha1($password, true)));
    }
    return false;
}

// ---- the notification schema: the rules of shared/verify/wh_schema.c -----------

function wh_chars_over(string $s, int $max): bool
{
    return strlen($s) > $max && iconv_strlen($s, 'UTF-8') > $max;
}

function wh_fmt_uuid(string $s): ?string
{
    return preg_match(WH_UUID, $s) ? null : 'must be a canonical UUID (8-4-4-4-12 hex digits)';
}

function wh_fmt_amount(string $s): ?string
{
    return preg_match('/^[0-9]+\.[0-9]{2}$/D', $s) ? null : 'must match N.NN (digits, a dot, two digits)';
}

function wh_fmt_account_type(string $s): ?string
{
    return ($s === 'D' || $s === 'S') ? null : 'must be one of D, S';
}

// RFC 3339 date-time: T or t, optional fraction up to 9 digits, Z or
// +-hh:mm, calendar-checked, second 60 allowed (leap second)
function wh_fmt_datetime(string $s): ?string
{
    if (!preg_match('/^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/D', $s, $m)) {
        return 'must be an RFC 3339 date-time';
    }
    $y = (int)$m[1];
    $mo = (int)$m[2];
    $d = (int)$m[3];
    $ok = $mo >= 1 && $mo <= 12 && $d >= 1 && $d <= cal_days_in_month(CAL_GREGORIAN, $mo, $y)
        && (int)$m[4] < 24 && (int)$m[5] < 60 && (int)$m[6] <= 60
        && (!isset($m[7]) || ((int)$m[7] < 24 && (int)$m[8] < 60));
    return $ok ? null : 'must be an RFC 3339 date-time';
}

// [key, required, nonempty, max characters (0: none), format]
function wh_schema_rules(): array
{
    $address = ['strings' => [['addressLine', false, false, 0, null], ['city', false, false, 0, null],
                              ['state', false, false, 0, null], ['postalCode', false, false, 0, null]]];
    return [
        'strings' => [
            ['notificationId', true, false, 0, 'wh_fmt_uuid'],
            ['eventType', true, true, 0, null],
            ['eventDateTime', true, false, 0, 'wh_fmt_datetime'],
        ],
        'children' => [['data', true, false, []]],
        'wire' => ['children' => [['wireEventInfo', true, false, [
            'strings' => [['paymentId', true, true, 0, null], ['status', true, true, 0, null],
                          ['IMAD', false, false, 0, null], ['OMAD', false, false, 0, null]],
            'children' => [
                ['exceptionInfo', false, true, ['strings' => [['exceptionCode', true, false, 0, null],
                                                              ['exceptionDescription', true, false, 0, null]]]],
                ['originalWire', false, false, [
                    'strings' => [['remittanceInformation', false, false, 140, null]],
                    'children' => [
                        ['wireInfo', false, false, ['strings' => [
                            ['paymentAmount', false, true, 12, 'wh_fmt_amount'],
                            ['referenceId', false, true, 35, null],
                            ['endToEndId', false, false, 0, 'wh_fmt_uuid']]]],
                        ['originatorInfo', false, false, ['strings' => [
                            ['accountNumber', false, true, 16, null],
                            ['accountType', false, false, 0, 'wh_fmt_account_type'],
                            ['name', false, true, 35, null],
                            ['wireCompanyId', false, true, 12, null],
                            ['wireCompanyName', false, true, 40, null]]]],
                        ['beneficiaryInfo', false, false, [
                            'strings' => [['accountNumber', false, true, 34, null],
                                          ['accountType', false, false, 0, 'wh_fmt_account_type'],
                                          ['name', false, true, 35, null]],
                            'children' => [
                                ['address', false, false, $address],
                                ['institutionInfo', false, false, [
                                    'strings' => [['name', false, false, 0, null], ['routingNumber', false, false, 0, null]],
                                    'children' => [['address', false, false, $address]]]]]]]]]]]]]]],
    ];
}

function wh_pointer(string $base, string $key): string
{
    return $base . '/' . str_replace(['~', '/'], ['~0', '~1'], $key);
}

// $o: a decoded JSON object (array, assoc). JSON null is absent.
function wh_check_node(array $o, string $ptr, array $rule, array &$problems): void
{
    foreach ($rule['strings'] ?? [] as [$key, $required, $nonempty, $max, $fmt]) {
        $v = $o[$key] ?? null;
        if ($v === null) {
            if ($required) {
                $problems[] = ['field' => wh_pointer($ptr, $key), 'problem' => 'is required'];
            }
            continue;
        }
        $why = null;
        if (!is_string($v)) {
            $why = 'must be a string';
        } elseif ($nonempty && $v === '') {
            $why = 'must not be empty';
        } elseif ($max && wh_chars_over($v, $max)) {
            $why = sprintf('must be at most %d characters (got %d)', $max, iconv_strlen($v, 'UTF-8'));
        } elseif ($fmt !== null) {
            $why = $fmt($v);
        }
        if ($why !== null) {
            $problems[] = ['field' => wh_pointer($ptr, $key), 'problem' => $why];
        }
    }
    foreach ($rule['children'] ?? [] as [$key, $required, $isArray, $sub]) {
        $v = $o[$key] ?? null;
        $p = wh_pointer($ptr, $key);
        if ($v === null) {
            if ($required) {
                $problems[] = ['field' => $p, 'problem' => 'is required'];
            }
            continue;
        }
        // json_decode(assoc) makes [] of both {} and []: an object is an
        // array with string keys or an empty one
        if ($isArray) {
            if (!is_array($v) || !array_is_list($v)) {
                $problems[] = ['field' => $p, 'problem' => 'must be an array'];
                continue;
            }
            foreach ($v as $i => $item) {
                if (!is_array($item) || ($item !== [] && array_is_list($item))) {
                    $problems[] = ['field' => "$p/$i", 'problem' => 'must be an object'];
                } else {
                    wh_check_node($item, "$p/$i", $sub, $problems);
                }
            }
        } elseif (!is_array($v) || ($v !== [] && array_is_list($v))) {
            $problems[] = ['field' => $p, 'problem' => 'must be an object'];
        } else {
            wh_check_node($v, $p, $sub, $problems);
        }
    }
}

// ---- the request --------------------------------------------------------

function wh_receive(): void
{
    $config = require __DIR__ . '/config.php';
    $challenge = ['WWW-Authenticate: Basic realm="wirehook"'];

    // 1. method
    if ($_SERVER['REQUEST_METHOD'] !== 'POST') {
        wh_fail(405, 'method_not_allowed', 'only POST is accepted', null, ['Allow: POST']);
        return;
    }
    // 2. Basic auth (mod_php decodes the header into PHP_AUTH_USER/PW)
    if (!isset($_SERVER['PHP_AUTH_USER'], $_SERVER['PHP_AUTH_PW'])) {
        wh_fail(401, 'auth_required', 'Basic authentication is required', null, $challenge);
        return;
    }
    $user = $_SERVER['PHP_AUTH_USER'];
    $pw = $_SERVER['PHP_AUTH_PW'];
    $authKey = 'wh:auth:' . hash('sha256', $user . "\0" . $pw);
    if (apcu_fetch($authKey) !== 1) {
        if (!wh_htpasswd_ok($config['htpasswd'], $user, $pw)) {
            wh_fail(401, 'auth_failed', 'the credentials are not valid', null, $challenge);
            return;
        }
        apcu_store($authKey, 1, WH_AUTH_TTL);
    }
    // 3. media type, no content coding
    $ct = $_SERVER['CONTENT_TYPE'] ?? '';
    $enc = $_SERVER['HTTP_CONTENT_ENCODING'] ?? 'identity';
    if (!preg_match('/^application\/json\s*(;|$)/i', $ct)
        || (preg_match('/;\s*charset\s*=\s*"?([^";\s]+)/i', $ct, $cs) && strcasecmp($cs[1], 'utf-8') !== 0)
        || strcasecmp($enc, 'identity') !== 0) {
        wh_fail(415, 'unsupported_media_type', 'the body must be application/json');
        return;
    }
    // 4. length, before reading when Content-Length says so
    $cl = $_SERVER['CONTENT_LENGTH'] ?? null;
    if ($cl !== null && $cl !== '' && !ctype_digit($cl)) {
        wh_fail(400, 'bad_request', 'Content-Length is not a number');
        return;
    }
    if ($cl !== null && $cl !== '' && (int)$cl > WH_MAX_BODY) {
        header('Connection: close');
        wh_fail(413, 'body_too_large', 'the body is too large');
        return;
    }
    $body = file_get_contents('php://input', false, null, 0, WH_MAX_BODY + 1);
    if ($body === false || strlen($body) > WH_MAX_BODY) {
        header('Connection: close');
        wh_fail(413, 'body_too_large', 'the body is too large');
        return;
    }
    // 5. timestamp: digits only, within 300 s either way
    $ts = $_SERVER['HTTP_X_TIMESTAMP'] ?? null;
    if ($ts === null) {
        wh_fail(401, 'timestamp_missing', 'the timestamp header is missing', null, $challenge);
        return;
    }
    if (!preg_match('/^[0-9]{1,19}$/D', $ts)
        || (strlen($ts) === 19 && strcmp($ts, (string)PHP_INT_MAX) > 0)) {
        wh_fail(401, 'timestamp_malformed', 'the timestamp must be digits only', null, $challenge);
        return;
    }
    $seconds = strlen($ts) >= 13 ? intdiv((int)$ts, 1000) : (int)$ts;
    $now = time();
    if ($seconds < $now - WH_TOLERANCE) {
        wh_fail(401, 'timestamp_expired', 'the timestamp is too old', null, $challenge);
        return;
    }
    if ($seconds > $now + WH_TOLERANCE) {
        wh_fail(401, 'timestamp_in_future', 'the timestamp is in the future', null, $challenge);
        return;
    }
    // 6. signature: HMAC-SHA256(secret, METHOD + URL + BODY + TIMESTAMP)
    $sig = $_SERVER['HTTP_X_SIGNATURE'] ?? null;
    if ($sig === null) {
        wh_fail(401, 'signature_missing', 'the signature header is missing', null, $challenge);
        return;
    }
    if (!preg_match('/^[0-9A-Fa-f]{64}$/D', $sig)) {
        wh_fail(401, 'signature_malformed', 'the signature must be 64 hex digits', null, $challenge);
        return;
    }
    $url = 'http://' . ($_SERVER['HTTP_HOST'] ?? '') . $_SERVER['REQUEST_URI'];
    $signed = $_SERVER['REQUEST_METHOD'] . $url . $body . $ts;
    $sig = strtolower($sig);
    $match = false;
    foreach ($config['secrets'] as $secret) { // every secret, in constant time
        if (hash_equals(hash_hmac('sha256', $signed, $secret), $sig)) {
            $match = true;
        }
    }
    if (!$match) {
        wh_fail(401, 'signature_mismatch', 'the signature does not match', null, $challenge);
        return;
    }
    // 7. strict JSON: one value, UTF-8, nesting <= 32
    try {
        $doc = json_decode($body, true, WH_MAX_NESTING + 1, JSON_THROW_ON_ERROR);
    } catch (JsonException $e) {
        wh_fail(400, 'invalid_json', 'the body is not valid JSON');
        return;
    }
    // 8. schema: every problem listed
    $problems = [];
    if (!is_array($doc) || ($doc !== [] && array_is_list($doc))) {
        $problems[] = ['field' => '', 'problem' => 'must be an object'];
    } else {
        $rules = wh_schema_rules();
        wh_check_node($doc, '', $rules, $problems);
        if (($doc['eventType'] ?? null) === 'wire.status' && is_array($doc['data'] ?? null)
            && ($doc['data'] === [] || !array_is_list($doc['data']))) {
            wh_check_node($doc['data'], '/data', $rules['wire'], $problems);
        }
    }
    if ($problems) {
        wh_fail(400, 'schema_violation', 'the notification does not match the schema', $problems);
        return;
    }
    $id = $doc['notificationId'];
    if (isset($config['sqlite'])) {
        wh_store($config['sqlite'], $id, $body);
        return;
    }
    // replay protection: the first copy wins, atomically across processes
    if (!apcu_add('wh:nid:' . $id, 1, WH_REPLAY_TTL)) {
        wh_send(200, ['status' => 'duplicate', 'notificationId' => $id]);
        return;
    }
    // UnknownStatus accept: an unknown status is flagged, not refused
    $known = in_array($doc['data']['wireEventInfo']['status'] ?? null, WH_KNOWN_STATUSES, true);
    header('X-Status-Known: ' . ($known ? '1' : '0'));
    wh_send(200, ['status' => 'accepted', 'notificationId' => $id]);
}

// The notification into SQLite (run.sh made the table, in WAL mode): 200
// accepted, 200 duplicate when the id is there, 503 when the database
// cannot take it.
function wh_store(string $file, string $id, string $body): void
{
    try {
        $db = new PDO('sqlite:' . $file, null, null,
                      [PDO::ATTR_PERSISTENT => true, PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
        $db->exec('PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000');
        $st = $db->prepare('INSERT OR IGNORE INTO events (id, received, body) VALUES (?, ?, ?)');
        $st->execute([$id, time(), $body]);
    } catch (PDOException $e) {
        wh_fail(503, 'inbox_unavailable', 'the notification could not be stored');
        return;
    }
    wh_send(200, ['status' => $st->rowCount() ? 'accepted' : 'duplicate', 'notificationId' => $id]);
}

wh_receive();
