/*
 * The pause container of the real nodes `npm run test:k8s` runs (scripts/stack/k8s-host.ts makes
 * its image): the process that holds a pod's namespaces while its containers come and go. It sleeps until told to
 * stop, and reaps the children a pod sharing its PID namespace leaves behind. Nothing can be pulled
 * on this machine, so the node's sandbox image is this, built static and imported.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int signal) {
  (void)signal;
  _exit(0);
}

static void reap(int signal) {
  (void)signal;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction on_stop = {.sa_handler = stop};
  struct sigaction on_child = {.sa_handler = reap, .sa_flags = SA_NOCLDSTOP};
  if (sigaction(SIGINT, &on_stop, NULL) < 0 || sigaction(SIGTERM, &on_stop, NULL) < 0 || sigaction(SIGCHLD, &on_child, NULL) < 0)
    return 1;
  for (;;) pause();
}
