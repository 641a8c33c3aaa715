import { useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError, auth } from '../api.ts';
import { session } from '../session.ts';

/** Sign in and sign up. A session that ended brings the person here with the reason. */

function safeNext(search: string): string {
  const next = new URLSearchParams(search).get('next');
  // Only a path of this app: never an absolute URL (open redirect).
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

function explain(error: unknown, signup: boolean): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Please try again.';
  if (error.status === 0) return error.message;
  if (error.status === 401) return 'Wrong email or password.';
  if (error.status === 409) return 'An account with this email already exists. Sign in instead.';
  if (error.status === 429) return 'Too many attempts. Please wait a minute and try again.';
  if (error.status === 400) return error.message.replace(/^body\./, '');
  return signup ? 'The account could not be created. Please try again.' : 'Signing in failed. Please try again.';
}

function CredentialsForm(props: { signup: boolean }) {
  const [, navigate] = useLocation();
  const search = useSearch();
  const [notice] = useState(() => session.takeNotice());
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (props.signup) await auth.signUp(email.trim(), password);
      const result = await auth.signIn(email.trim(), password);
      session.start(result.token, result.expires_in, result.user);
      navigate(safeNext(search), { replace: true });
    } catch (e) {
      setError(explain(e, props.signup));
    } finally {
      setBusy(false);
    }
  };

  const title = props.signup ? 'Create your account' : 'Sign in';
  return (
    <main id="main" class="auth">
      <p class="brand">token-monitor</p>
      <h1>{title}</h1>
      <p class="muted">New tokens on EVM chains, live, and which of them are traps.</p>
      {notice && <p class="notice" role="status">{notice}</p>}
      <form onSubmit={submit} noValidate={false}>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autoComplete={props.signup ? 'new-password' : 'current-password'} required
          minLength={props.signup ? 8 : undefined} value={password} onInput={(e) => setPassword(e.currentTarget.value)}
          aria-describedby={props.signup ? 'password-hint' : undefined} />
        {props.signup && <p id="password-hint" class="muted small-text">At least 8 characters.</p>}
        {error && <p class="error" role="alert">{error}</p>}
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Please wait…' : title}</button>
      </form>
      <p>
        {props.signup ? <>Already have an account? <Link href="/signin">Sign in</Link></> : <>No account yet? <Link href="/signup">Create one</Link> (free)</>}
      </p>
    </main>
  );
}

export const SignIn = () => <CredentialsForm signup={false} />;
export const SignUp = () => <CredentialsForm signup />;
