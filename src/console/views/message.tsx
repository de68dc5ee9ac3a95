// A page that only says something: an error, or a page that needs an entitlement.
import { page, Problem, type Viewer } from './layout.js';

export function messagePage({
  title,
  viewer,
  message,
  details = [],
  back,
}: {
  title: string;
  viewer: Viewer | null;
  message: string;
  details?: string[];
  back?: string;
}): string {
  return page({
    title,
    viewer,
    children: (
      <>
        <Problem message={message} details={details} />
        {back && (
          <p>
            <a href={back}>Back</a>
          </p>
        )}
      </>
    ),
  });
}
