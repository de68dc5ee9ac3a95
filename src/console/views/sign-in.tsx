// Sign-in: email and password, with the same message whichever of the two was wrong.
import { Csrf, page, Problem } from './layout.js';

export function signInPage({ csrf, email = '', problem = null }: { csrf: string; email?: string; problem?: string | null }): string {
  return page({
    title: 'Sign in',
    viewer: null,
    children: (
      <section class="card sign-in">
        <Problem message={problem} />
        <form method="post" action="/console/sign-in">
          <Csrf token={csrf} />
          <label for="email">Email</label>
          <input id="email" type="email" name="email" value={email} autocomplete="username" required maxLength={254} />
          <label for="password">Password</label>
          <input id="password" type="password" name="password" autocomplete="current-password" required maxLength={1024} />
          <p>
            <button type="submit">Sign in</button>
          </p>
        </form>
        <p class="muted">Console users are created by the operator of this service.</p>
      </section>
    ),
  });
}
