package dev.tally.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;

/** An {@link AsyncContext} that runs a step before {@code complete()} (a held answer goes out). */
final class CompletingAsync implements AsyncContext {
  private final AsyncContext ac;
  private final Runnable beforeComplete;

  CompletingAsync(AsyncContext ac, Runnable beforeComplete) {
    this.ac = ac;
    this.beforeComplete = beforeComplete;
  }

  @Override
  public void complete() {
    try {
      beforeComplete.run();
    } finally {
      ac.complete();
    }
  }

  @Override
  public ServletRequest getRequest() {
    return ac.getRequest();
  }

  @Override
  public ServletResponse getResponse() {
    return ac.getResponse();
  }

  @Override
  public boolean hasOriginalRequestAndResponse() {
    return ac.hasOriginalRequestAndResponse();
  }

  @Override
  public void dispatch() {
    ac.dispatch();
  }

  @Override
  public void dispatch(String path) {
    ac.dispatch(path);
  }

  @Override
  public void dispatch(ServletContext context, String path) {
    ac.dispatch(context, path);
  }

  @Override
  public void start(Runnable run) {
    ac.start(run);
  }

  @Override
  public void addListener(AsyncListener listener) {
    ac.addListener(listener);
  }

  @Override
  public void addListener(
      AsyncListener listener, ServletRequest request, ServletResponse response) {
    ac.addListener(listener, request, response);
  }

  @Override
  public <T extends AsyncListener> T createListener(Class<T> clazz) throws ServletException {
    return ac.createListener(clazz);
  }

  @Override
  public void setTimeout(long timeout) {
    ac.setTimeout(timeout);
  }

  @Override
  public long getTimeout() {
    return ac.getTimeout();
  }
}
