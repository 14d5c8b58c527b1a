<?php
// The application behind mod_wirehook, in PHP (run by php-cgi). When it
// runs, the notification passed every check; it only has to keep it.
// php://input is the body exactly as the bank sent it; getenv('WIREHOOK_*')
// holds the facts the module verified.
// A failure here (500) makes the module forget the notificationId, so the
// bank's retry is delivered again.
$spool = getenv('APP_SPOOL') ?: (getenv('REDIRECT_APP_SPOOL') ?: '/var/lib/wirehook/spool');
$id = preg_replace('/[^A-Za-z0-9-]/', '', (string) getenv('WIREHOOK_NOTIFICATION_ID'));
header('Content-Type: application/json');
if (getenv('WIREHOOK_VERIFIED') !== '1' || $id === '') {
    http_response_code(403);   // not behind mod_wirehook
    echo json_encode(['error' => 'not verified by mod_wirehook']), "\n";
    exit;
}
$body = file_get_contents('php://input');
$tmp = tempnam($spool, '.incoming.');
if ($tmp === false || file_put_contents($tmp, $body) !== strlen($body)
    || !rename($tmp, "$spool/$id.json")) {
    http_response_code(500);
    echo json_encode(['error' => 'cannot store the notification']), "\n";
    exit;
}
chmod("$spool/$id.json", 0644);
file_put_contents("$spool/received.log", sprintf("%s %s %s %s\n", $id,
    getenv('WIREHOOK_PAYMENT_ID') ?: '-', getenv('WIREHOOK_STATUS') ?: '-',
    getenv('WIREHOOK_STATUS_KNOWN')), FILE_APPEND | LOCK_EX);
echo json_encode(['received' => $id, 'app' => 'php']), "\n";
