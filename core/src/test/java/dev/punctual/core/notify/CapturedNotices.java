package dev.punctual.core.notify;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Notices kept in {@link #published}, in the order published, for a test to look at. */
public final class CapturedNotices implements RunNotices {
    /** Written by the threads that publish, read by the test: safe to read while they run. */
    public final List<Notice> published = new CopyOnWriteArrayList<>();

    @Override
    public void publish(Notice notice) {
        published.add(notice);
    }

    @Override
    public boolean flush(Duration within) {
        return true;
    }
}
