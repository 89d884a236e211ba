/**
 * Mock mode (`vite --mode mock`): the SDK's mock answers `/v1` inside a service worker, stocked
 * with sample vaults, so the page runs with no service and no proxy. Buttons sign in as the
 * mock's people, to see what an owner and a plain member may do. The data lives in this tab and
 * starts afresh on reload.
 */
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { setupWorker } from 'msw/browser';
import { seedDashboard } from './seed.js';

/** Starts the mock in a service worker, stocks it, and offers its people to sign in as. */
export async function startMock(tokenInput: HTMLInputElement, connectForm: HTMLFormElement) {
  const mock = createVaultMock({ baseUrl: location.origin });
  // Requests the mock does not know (the page's own files) go to the dev server untouched.
  await setupWorker(...mock.handlers).start({ quiet: true, onUnhandledFrame: 'bypass' });
  await seedDashboard(mock.baseUrl, mock.principals);

  const note = document.querySelector<HTMLElement>('#mock-note');
  if (note === null) return;
  note.textContent = 'Mock mode: sample data in this tab. Sign in as ';
  const people = [
    ['Ada (owner)', mock.principals.owner.token],
    ['Grace (member)', mock.principals.member.token],
  ] as const;
  for (const [index, [label, token]] of people.entries()) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    button.addEventListener('click', () => {
      tokenInput.value = token;
      connectForm.requestSubmit();
    });
    note.append(index === 0 ? '' : ' or ', button);
  }
  note.hidden = false;
}
