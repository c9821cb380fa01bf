import type { TopicName } from './topic-names.js';
import { exitCodeLines } from '../errors/exit-codes.js';

/*
 * The texts of `fraudctl help TOPIC`, also pages of the generated reference (docs/reference/)
 * and sections of the man page. Plain text, at most 80 columns, so a terminal, a Markdown code
 * block and roff's no-fill mode show them alike. Loaded only by `fraudctl help TOPIC`.
 */

export const TOPIC_TEXTS: Record<TopicName, string> = {
  'exit-codes': `Exit codes

${exitCodeLines('full')}

Many ids or events in one run (set-state, show, submit batches) exit with the
worst outcome among them: 3 before 6 before 5 before 4 before 1. A batch whose
results go to stdout finishes cleanly when stdout closes: it sends no new lines
and says on stderr how many results could not be written (exit 1). A results
file or log that cannot be written (a full disk, the file deleted) stops the
run the same way, naming the file and the cause (exit 1).
`,

  environment: `Environment variables

fraudctl reads these; a flag given on the command line wins over its variable,
and a variable wins over the config file (fraudctl help config).

  FRAUDCTL_PROFILE          the profile to use (as --profile)
  FRAUDCTL_BASE_URL         the service's URL (as --base-url)
  FRAUDCTL_API_KEY          the API key; never put a key in a flag, where other
                            users of the machine can read it (ps)
  FRAUDCTL_TIMEOUT          seconds before a request is given up (as --timeout;
                            default 30)
  FRAUDCTL_KEYRING_TIMEOUT  seconds to wait for the OS credential store, e.g.
                            an unlock prompt (default 30)
  FRAUDCTL_SANDBOX_KEY      the API key of the sandbox's demo merchant (default:
                            the public sandbox key; needed to serve beyond
                            loopback)
  FRAUDCTL_SHELL            the shell that hints are written for: sh (POSIX:
                            bash, zsh, fish), powershell or cmd. Default: sh,
                            but on Windows powershell when PowerShell started
                            fraudctl (its user module folder is in
                            PSModulePath), sh in Git Bash or Cygwin, else cmd
  HTTPS_PROXY, HTTP_PROXY,  a forward proxy, with credentials in the URL if it
  NO_PROXY                  asks for them; lower-case forms are honoured too
  NODE_EXTRA_CA_CERTS       a PEM file of a private CA to trust
  NO_COLOR, FORCE_COLOR     no colour; colour even off a terminal
  TERM                      TERM=dumb: no colour
  LC_ALL, LC_CTYPE, LANG    the first one set names the locale; one that is
                            not UTF-8 (LANG=C, ISO-8859-1) gets ASCII tables,
                            arrows and separators (+-|, ->, ...)
  XDG_CONFIG_HOME           where the config file is (default ~/.config)
  XDG_DATA_HOME             where the embedded sandbox keeps its events
                            (default ~/.local/share)
  XDG_CACHE_HOME            where Node's compile cache for fraudctl is
                            (default ~/.cache)
                            The three move fraudctl's files on every platform;
                            unset, macOS and Windows use their own places
                            (%APPDATA%, %LOCALAPPDATA%)

Tests only: FRAUDCTL_REQUIRE_ALL_TESTS=1 makes a test skipped for a missing
program (tmux, zsh, ...) fail instead; FRAUDCTL_PROPERTY_SEED=N draws the
property tests from seed N.
`,

  config: `The config file and profiles

Each setting comes from, in this order: a flag, the environment, the profile in
the config file, a default. A message that names a setting also names where it
came from, so a variable that overrides a profile is never a surprise.

  setting      flag             environment        config (per profile)
  profile      --profile        FRAUDCTL_PROFILE   activeProfile (config use)
  service URL  --base-url       FRAUDCTL_BASE_URL  baseUrl
  API key      (none)           FRAUDCTL_API_KEY   the credential store (login)
                                                   or apiKey (no store, or
                                                   login --insecure-storage)
  timeout      --timeout        FRAUDCTL_TIMEOUT   timeoutSeconds (default 30)
  retries      (none)           (none)             retries (default 3)
  plain http   --insecure-http  (none)             insecureHttp
  analyst      (none)           (none)             analyst (who --log lines
                                                   name; default: OS user)
  reasons      (none)           (none)             reasons (codes for
                                                   --reason, review's keys)
  require-     (none)           (none)             requireReason (a change
  reason                                           of state needs a reason)

Reason codes (config set reasons CODE,CODE:STATE+STATE,...): the team's list of
why a decision is made. A code is 1-40 lower-case letters, digits and hyphens;
after a colon, the states it applies to (joined by +), else any change. With
config set require-reason true, set-state refuses a change of state without
--reason (exit 2), and review sends none until a code is chosen by its number
key. config unset reasons removes them.

  fraudctl config set reasons stolen-card,fraud-ring:DECLINED+FRAUD_CONFIRMED
  fraudctl set-state ord-1002 --state declined --reason stolen-card

With nothing configured, fraudctl runs the sandbox in-process (the built-in
profile "sandbox") and says so on stderr.

A profile is made by giving it a service URL: login --profile NAME --base-url
URL, or config set base-url URL --profile NAME. Other settings need a profile
that exists, so a mistyped name is refused (exit 2), never made a new profile.

A key stored by login is sent only to its profile's URL: a --base-url or
FRAUDCTL_BASE_URL naming another service is refused (exit 2) unless the key
comes from FRAUDCTL_API_KEY. login takes a URL from --base-url only; config set
base-url moves a profile and its key (asked on a terminal, else --yes).

The file is $XDG_CONFIG_HOME/fraudctl/config.json (~/.config/fraudctl/ by
default), mode 0600, written whole or not at all (a temp file, fsync, rename)
under a lock (config.json.lock), so two changes at once both land. A change
waits up to 10 s for a holder that still runs, then fails naming its pid; a
lock whose holder is gone is taken at once.

  fraudctl login --profile prod --base-url https://fraud.example.com
  fraudctl config list
  fraudctl config use prod
  fraudctl config set timeout 60 --profile prod
  fraudctl doctor
`,

  results: `The results file (--out) and --resume

submit (a batch) and set-state (many events) write one JSON object per input
item to --out (mode 0600), each with one write(2) as soon as the item is
settled: in completion order, not input order. A run that dies any way (even
kill -9) leaves whole lines, at worst a cut-off last one, which --resume drops.
A line a full disk took only part of is cut back, and the run stops (exit 1)
naming the file; a file deleted during the run is noticed and written back
(Linux). Once there is room, --resume goes on.

The first line is the run's header, {"fraudctl":"results","version":1,
"command":...,"service":...,"options":{...},"closed":...}: the service the run
sent to (its URL, never the key) and the options that decide what is sent
(set-state: state, comments, ifState, forceState; submit: rejects). Before
it sends an event without an id, submit writes {"fraudctl":"sending","line":N,
"column":N}. Every other line is a result. submit's lines: line, id, outcome
(DECIDED, REJECTED, FAILED, UNKNOWN), status, actionType, totalRiskScore,
errorType, errorCodes, attempts, latencyMs, column, idAssigned, alreadyExisted
(the service had the event: it answered 200, not 201), stateNow (its state
read then), and what fraudctl evaluate needs: ruleIds (the rules that
matched), eventDate, amount and currency (the payload's), amountInBaseCurrency
(an answer's, or the amount of an event sent in the base currency; null
otherwise, and evaluate reads the event), baseCurrency (on DECIDED lines: the
run learns it with one request more, GET /event/{id} of its first decided
event, once; when that read fails it is null, and nothing else changes).
set-state's lines: id, from, to,
outcome (CHANGED, SKIPPED, NOT_FOUND, INVALID, REFUSED, FAILED, CONFLICT,
CLAIMED: IN_REVIEW, held in a review session, not changed without
--include-claimed),
reason, status, errorType, errorCodes, requestId, item (its place in the
input), where (argument 2, ids.txt:14), reasonCode. Two names, two meanings:
reason is why the line was not changed, in words (SKIPPED "already DECLINED",
a refusal's message), null when changed; reasonCode is the run's --reason code
(the comment sent starts with "[reason: CODE]"), null without --reason.

Run the same command again with --resume and the same --out: items settled are
skipped, FAILED ones are done again, an item whose request may have reached the
service is read back before anything is sent (without an id it is UNKNOWN,
if its sending was recorded; one never sent is sent now), and the file ends
with exactly one line per input item, as if the run had never stopped. A
resume against another service, or with other options, is refused (exit 2);
an option left out is taken from the header. --resume without the
results file is an error (exit 2), never a fresh start.

One run at a time writes a results file (it holds FILE.lock beside it): a
second run on the same --out, --resume included, is refused at once (exit 2),
naming the pid of the run that has it. A lock left by a run that is gone
(kill -9) is taken over, with a note.

  fraudctl submit orders.jsonl --out results.jsonl --rejects rejects.jsonl
  fraudctl submit orders.jsonl --out results.jsonl --resume   # same --rejects
  jq -c 'select(.outcome and .outcome != "DECIDED")' results.jsonl
  jq -c 'select(.fraudctl | not)' results.jsonl       # every result alone
`,

  log: `The action log (--log)

review --log FILE and set-state --log FILE (one event or many) append JSON
lines as actions happen, for an audit of the session. The file is created as
touch creates one (mode 0666 less the umask: a team's umask 002 in a setgid
directory of its group lets every analyst of the group append; see
docs/review.md) and opened for append, and each line is written whole or not
at all. Several sessions may share one log (a team's file): each line is
appended under the file's lock (FILE.lock), taken for that one append, so the
lines of two analysts interleave in one chain.

Rotate a log with logrotate's create (the default: rename, then a new file),
not copytruncate: a session follows the rename, and its first line in the new
file names the last line it wrote to the old one (continues), so that log
verify OLD NEW checks the join. copytruncate copies the file, then cuts it to
nothing: a line appended between the two is in neither file. A session notices
the file became shorter and records the join the same way, so the loss shows,
but cannot bring the line back. A log deleted while open stops the session.
A FIFO or a pipe (a log shipper's, --log /dev/stdout) is written, never read:
a FIFO nobody reads is refused (exit 2), and a reader that leaves stops the
run before its next change is sent.

Each change is logged before it is sent (outcome "sending") and again with its
outcome: a change whose first line cannot be written (a full disk) is not
sent, and the session or run stops (exit 1); review gives its claims back
first, the one change made without its line. A "sending" line with no outcome
after it: the session ended before the answer (the event's state tells).

Each line, in this order:
  time       when (UTC, ISO 8601)
  analyst    who: the profile's analyst (fraudctl config set analyst NAME),
             else the OS user; declared, not authenticated
  host       the machine's name
  profile    the profile in force; "(--base-url)" or "(FRAUDCTL_BASE_URL)"
             when the service URL came from there, not from the profile
  service    the service's URL (never the key); null: the embedded sandbox
  version    fraudctl's version
  session    a random id per run (a UUID)
  eventId    the event
  action     claim, release, approve, decline, escalate, fraud, comment,
             skip, set-state
  from, to   the state before and the state asked for
  comments   the comment sent, or null
  requestId  the service's request id (null before the answer)
  outcome    sending, ok, refused (4xx), failed (5xx, network), conflict
             (not sent: the event had changed)
  status     the HTTP status of a failure, else null
  message    what went wrong (only when something did)
  reason     the change's reason code (set-state --reason CODE, or a number
             key in review; one of the profile's: fraudctl config set
             reasons), else null; the comment sent then starts with
             "[reason: CODE] "
  continues  only on a line written after a rotation or after the file was
             cut short: {"line": K, "hash": H}, the last line its writer knew
             before (K, and the SHA-256 of its bytes)
  line       the line's number in the file
  prev       the SHA-256 (hex) of the line before, as bytes without its line
             feed; 64 zeros for a file's first line
  hash       the SHA-256 (hex) of this line's text without this member

Before appending, each session checks the last line of the file (its own
hash); a log whose last line was edited, cut or stripped of its hash is
refused (exit 1, nothing sent): fraudctl log verify FILE says what changed,
and a new --log file goes on. A log written by an older fraudctl (no hash on
its lines) is walked whole once and refused if its chain is broken.

fraudctl log verify FILE... walks the chain: exit 0 and "N lines intact"
(with the last line's hash) when whole, else exit 1 naming every break under
a count (edited, removed, reordered, inserted or copied, cut, NUL bytes from
a crash, unchained), each change once. CR LF endings and a missing last line
feed are said once for the file, as what they are. Lines written before
fraudctl chained its lines (no line, no prev) are "unchained lines 1-N": not
intact, since nothing proves they were not changed. --expect HASH (the hash
verify printed before) fails when the file no longer holds that line whole:
lines removed from the end; lines added after it are said. Rotated files given
oldest first (log verify team.log.1 team.log) are checked at their join: lines
in neither file are named.

What the log proves, and what it does not:
  - an edit of any line, the last one too: its own hash no longer matches
  - a line removed, moved or inserted: the next line's prev no longer matches
  - lines lost to a rotation: the continues of the next file's line says so
  - NOT a rewrite of the whole file with its hashes recomputed (SHA-256 has no
    secret: anyone with the tool or sha256sum can), nor the last lines removed
    (a shorter chain is whole): keep the hash verify prints somewhere else (a
    ticket, a chat) and check it later with log verify --expect HASH, or ship
    the log off the machine as it is written
  - NOT who acted: the analyst is declared, and the API key is the
    merchant's, not a person's

fraudctl history ID --log FILE... tells one event's story from the logs (who
claimed, decided and commented, in time order) and then its state now.
fraudctl report --log FILE... counts the team's decisions by analyst and reason,
times from claim to decision, and the decisions later overturned, comparing a
decision only with the service its line names (another service's lines are
left out, said with how many). Both check each line against the chain as they
read: a line that breaks it is named (file:line and kind) and they stop, exit
1, unless --include-unverified, when they read on and say how many unverified
lines they used. CR LF endings and a missing last line feed are read, with a
note; a line cut short or of NUL bytes (a crash) is skipped with a note.

  fraudctl config set analyst "Ann Lee" --profile prod
  fraudctl review --from queue.txt --log team.log
  fraudctl set-state ord-1002 --state declined --log team.log
  fraudctl set-state ord-7 --state declined --reason stolen-card --log team.log
  jq -r 'select(.outcome == "ok") | .reason' team.log | sort | uniq -c
  fraudctl log verify team.log
  fraudctl history ord-1002 --log team.log
  fraudctl report --log team.log --since 2026-11-24 --sla 4h
  jq -c 'select(.outcome != "ok" and .outcome != "sending")' team.log
`,
  evaluate: `fraudctl evaluate: the figures, and every --json field

evaluate RESULTS... --labels FILE reads results files of submit --out (and
--from ids) and an outcomes file, and says how the decisions did. Options:
fraudctl evaluate --help.

What an event's outcome can tell. fraud: the outcomes file lists it as fraud.
legit (no fraud reported): not listed, and not declined. unknown: declined and
not listed: a declined event never reaches the card network, so no chargeback
can come; it is counted apart, never as legit. Precision and the false-
positive rate count knowable outcomes only; recall counts all reported fraud.
A rate of nothing (precision with nothing flagged) is null, never 0. Amounts
are in the service's base currency (amountInBaseCurrency).

Reading. A results line records the decision, score, ruleIds, eventDate, and
the amount and currency sent (the POST's answer has no base amount). A line in
the service's base currency needs no request: submit records its base amount
and the base currency (baseCurrency); for an older line --base-currency CODE
gives the base currency, else a line's baseCurrency, else one event's summary
(one GET for the run); two that differ are refused (exit 2), never summed as
one. Any other (another currency, an older fraudctl, a --from id) is read: GET
/event/{id} for the amount and date, the risk assessment for the decision and
rules (only what is missing; --concurrency at once); events.read says how
many. An event that cannot be read is counted in events.unread, by kind, and
the run exits 4 (not found) or 6 (unavailable) after the report; a refused key
stops at once (exit 3). An event named by two files counts once. --maturity
90d leaves out events younger than that.

--json is one object:
  complete     false when some events could not be read
  events       evaluated, fraud, noFraudReported, unknowable, young,
               notDecided, repeated, read, cutOff, unread {count, byKind, events
               [{id, where, reason}]}, labelsWithoutResult {count, ids}
  outcomes     file, rows, fraud, read (fraud-when, label, listed), idColumn
  maturityDays, thresholds {review, decline}
  baseCurrency {code, from ("option", "results" with where (FILE:LINE), or
               "event" with its id)}, or null
  summary      events, fraud, fraudRate, fraudDeclined, fraudInReview,
               fraudLetThrough, declinedNotReported ({count, amount} each:
               the good customers declined are at most that many),
               reviewLoad {count, share}
  decisions    {"APPROVE": {"fraud", "legit", "unknown", "fraudAmount",
               "legitAmount", "unknownAmount"}, "REVIEW": ..., "DECLINE": ...}
  rules        [{"rule", "hits", "fraudHits", "legitHits", "unknownHits",
               "precision", "recall", "onlyRule" (fraud no other rule
               matched), "fraudAmount", "firesWith" [{rule, count}]}],
               most fraud first
  sweep        101 points, threshold 0-100, flagging score >= threshold as
               the service does: [{"threshold", "flagged", "fraudFlagged",
               "legitFlagged", "unknownFlagged", "precision", "recall",
               "falsePositiveRate", "approvalRate", "fraudAmountCaught",
               "current" ("review", "decline" or null)}]
  overTime     with --by day|week (UTC; weeks from Monday): {by, periods
               [{start, events, APPROVE, REVIEW, DECLINE, fraud, fraudRate}]}
  replay       with --rules FILE, else null: {candidate, payloads ("files"
               or "service"), events, unread,
               changed, velocityNote, shift {"REVIEW": {"DECLINE": {"count",
               "fraud", "legit", "unknown", "amount"}}, ...}, today and
               candidateFigures {decisions, summary, rules, sweep}: the
               replayed events' figures, as decided and under the candidate}

Replay (--rules FILE, the sandbox's format: fraudctl sandbox default-config):
each event's payload is taken from --events FILE (the files submit read,
matched by id; no request) or else read (GET /event/{id}: the payload as the
service normalised it), and screened by the sandbox's engine; velocity rules
count the evaluated events before each in date order, as of its date: events
the files do not hold cannot be counted. The configuration in force replays
to no shift on events it screened in date order (submit --concurrency 1).

--csv FIGURE prints one of decisions, rules, sweep, over-time, shift, with
the same names as columns. --html FILE writes the same figures as one file.

  fraudctl evaluate results.jsonl --labels chargebacks.csv --maturity 90d
  fraudctl evaluate results.jsonl --labels cb.csv --json | jq '.rules[0]'
  fraudctl evaluate results.jsonl --labels cb.csv --csv sweep > sweep.csv
`,
};
