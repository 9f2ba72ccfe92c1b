import { useId, useState } from 'react';
import { allowBrowserNotifications, browserNotifications } from '../../actions/attention';
import { setPreferences } from '../../actions/preferences';
import { usePreferences } from '../../stores/preferences';
import { useSettings } from '../../stores/settings';

/** Desktop notifications when a turn ends or Deft waits while the window is in the background; in a browser, its permission too. */
export function NotificationSettings() {
  const enabled = usePreferences((s) => s.preferences?.notifications ?? true);
  const host = useSettings((s) => s.workspace?.host);
  const [permission, setPermission] = useState(browserNotifications);
  const id = useId();
  return (
    <div className="notification-settings">
      <label className="checkbox" htmlFor={id}>
        <input id={id} type="checkbox" checked={enabled} onChange={(e) => void setPreferences({ notifications: e.target.checked })} />
        Notify me when a turn ends or Deft waits for me while the window is in the background
      </label>
      {host !== 'electron' && enabled ? (
        permission === 'granted' ? (
          <p className="form-note">This browser shows them.</p>
        ) : permission === 'denied' ? (
          <p className="form-note">This browser blocks notifications from this page: allow them in the site settings (the icon left of the address).</p>
        ) : permission === 'unsupported' ? (
          <p className="form-note">This browser cannot show notifications.</p>
        ) : (
          <button type="button" className="button button-small" onClick={() => void allowBrowserNotifications().then(setPermission)}>
            Allow notifications in this browser
          </button>
        )
      ) : null}
    </div>
  );
}
