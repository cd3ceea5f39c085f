//! What a webhook endpoint's card does (view-endpoint.js): Send test, Re-enable (optionally
//! resending what it missed) and Resend; Rotate secret and End previous secret; the choice of event
//! types and Delete. Each reports its outcome under the card's buttons and updates the card.
import { confirmAction } from './dialogs.js';
import { announce, busy, formatDuration, problemText, sleep } from './dom.js';
import { showSecret } from './secret.js';

/**
 * The endpoint's failure count is mirrored by its workflow just after the attempt is recorded,
 * so right after an attempt appears the endpoint may still show the count from before it.
 */
const MIRROR_READS = 6;
const MIRROR_PAUSE_MS = 500;

/** Whether `endpoint` already counts `attempt`: a failure counts at least one, a success resets to zero. */
const counts = (endpoint, attempt) =>
  attempt.success ? endpoint.consecutiveFailures === 0 : endpoint.consecutiveFailures > 0 || endpoint.status === 'disabled';

/** What a test delivery came to, in one sentence. */
function outcome(attempt) {
  if (attempt.success) return `Test event delivered: HTTP ${attempt.statusCode} in ${formatDuration(attempt.durationMs)}.`;
  const status = attempt.statusCode ? ` with HTTP ${attempt.statusCode}` : '';
  return `Test delivery failed${status}: ${(attempt.error ?? 'no answer').replace(/\.$/, '')}.`;
}

/** Send test, Re-enable and Resend: what is delivered to the endpoint, and how it went. */
export function deliveryActions({ client, id, card, view, attempts, update, report }) {
  const { result, recoverSelect } = view;

  /** Reads the endpoint again until it counts `attempt` (a few reads at most), showing each read. */
  async function rereadAfter(attempt) {
    for (let read = 1; ; read++) {
      const next = (await client.webhooks()).find((e) => e.id === id);
      if (next) update(next);
      if (!next || counts(next, attempt) || read === MIRROR_READS) return;
      await sleep(MIRROR_PAUSE_MS);
    }
  }

  async function sendTest(button) {
    await busy(button, async () => {
      try {
        const { eventId } = await client.testWebhook(id);
        result.textContent = `Test event ${eventId} sent; waiting for its delivery attempt…`;
        const attempt = await attempts.watch(eventId);
        if (!attempt) {
          result.textContent = `Test event ${eventId} sent; no delivery attempt yet. Refresh the attempts in a moment.`;
          return;
        }
        // The count of failures first, so the outcome is announced with the card up to date and
        // the button free again; a failed re-read leaves the old count, not an error.
        await rereadAfter(attempt).catch((err) => {
          if (err.name === 'AbortError') throw err;
        });
        result.textContent = outcome(attempt);
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not send the test: ${problemText(err)}`;
      }
    });
  }

  async function enable(button) {
    await busy(button, async () => {
      try {
        const back = Number(recoverSelect.value);
        const since = back ? new Date(Date.now() - back).toISOString() : undefined;
        update(await client.enableWebhook(id, since));
        recoverSelect.value = '';
        announce(`Endpoint ${card.endpoint.url} re-enabled.${since ? ' The events it missed are being resent, oldest first.' : ''}`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not re-enable: ${problemText(err)}`;
      }
    });
  }

  async function replay(attempt, button) {
    await busy(button, async () => {
      try {
        const known = attempts.shownFor(attempt.eventId);
        await client.replay(id, attempt.eventId);
        result.textContent = `Event ${attempt.eventId} resent; waiting for its delivery attempt…`;
        const next = await attempts.watch(attempt.eventId, 30_000, known);
        if (!next) report(`Event ${attempt.eventId} resent; no delivery attempt yet. Refresh the attempts in a moment.`);
        else
          report(
            next.success
              ? `Event ${attempt.eventId} delivered again: HTTP ${next.statusCode}.`
              : `Resending ${attempt.eventId} failed: ${(next.error ?? 'no answer').replace(/\.$/, '')}.`,
          );
      } catch (err) {
        if (err.name === 'AbortError') return;
        report(`Could not resend ${attempt.eventId}: ${problemText(err)}`);
      }
    });
  }

  return { sendTest, enable, replay };
}

/** Rotate secret and End previous secret. */
export function secretActions({ client, id, card, view, update, report }) {
  const { result, secretBox, rotateButton } = view;

  async function rotate(button) {
    const confirmed = await confirmAction({
      title: `Rotate the signing secret of ${card.endpoint.url}?`,
      body:
        'You get a new secret, shown once. For 24 hours every delivery is signed with both the new and the current secret, ' +
        'so you can move your receiver without missing a delivery; then only the new one signs. Rotating again ends the older secret at once.',
      confirmLabel: 'Rotate secret',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        const rotated = await client.rotateSecret(id);
        update(rotated);
        showSecret(secretBox, {
          title: `New signing secret for ${rotated.url}`,
          label: 'New signing secret',
          copyLabel: 'Copy secret',
          note: 'Copy this secret now and give it to your receiver: it is shown only once. Deliveries carry both signatures until the previous secret stops signing.',
          secret: rotated.secret,
          onDone: () => rotateButton.focus(),
        });
        announce('Secret rotated. Copy the new secret now: it is shown only once.');
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not rotate the secret: ${problemText(err)}`;
        button.focus();
      }
    });
  }

  async function endOverlap(button) {
    const confirmed = await confirmAction({
      title: `Stop signing with the previous secret of ${card.endpoint.url}?`,
      body: 'From now on deliveries are signed with the new secret only: a receiver still checking the previous one will refuse them.',
      confirmLabel: 'End previous secret',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        update(await client.endPreviousSecret(id));
        rotateButton.focus();
        report('The previous secret no longer signs deliveries.');
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not end the previous secret: ${problemText(err)}`;
        button.focus();
      }
    });
  }

  return { rotate, endOverlap };
}

/** Choose event types and Delete. */
export function settingActions({ client, id, card, view, update, report }, onDeleted) {
  const { result, typeBoxes, typesError, typesForm } = view;

  async function saveTypes(event) {
    event.preventDefault();
    const button = typesForm.querySelector('button[type=submit]');
    await busy(button, async () => {
      typesError.hidden = true;
      const chosen = typeBoxes.filter((b) => b.checked).map((b) => b.value);
      if (chosen.length === 0) {
        typesError.textContent = 'Choose at least one event type.';
        typesError.hidden = false;
        typeBoxes[0].focus();
        return;
      }
      try {
        update(await client.setEventTypes(id, chosen));
        report(`Event types saved: ${chosen.join(', ')}.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        typesError.textContent = `Could not save: ${problemText(err)}`;
        typesError.hidden = false;
      }
    });
  }

  async function remove(button) {
    const confirmed = await confirmAction({
      title: `Delete endpoint ${card.endpoint.url}?`,
      body: 'Nothing more will be posted to this URL, including deliveries still waiting for a retry. This cannot be undone.',
      confirmLabel: 'Delete endpoint',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await client.deleteWebhook(id);
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not delete: ${problemText(err)}`;
        button.focus();
        return;
      }
      await onDeleted(card.endpoint);
    });
  }

  return { saveTypes, remove };
}
