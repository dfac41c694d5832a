# touchgestured: build and install.
#   make                      release build (scripts/release-build: static Swift runtime, LTO)
#   make install              binaries, man pages, systemd units, udev rules, default config, docs
#                             (the README and docs/ with the pictures and examples they link), the web files
#   make install-files        the same without building (a packager's step: debian/rules)
#   make uninstall            removes what install placed (the config in /etc stays if edited)
# Variables: PREFIX (/usr/local), DESTDIR (staging root), SYSCONFDIR (/etc),
#            UNITDIR (/etc/systemd/system), UDEVDIR (/etc/udev/rules.d), SYSUSERSDIR (/etc/sysusers.d),
#            TMPFILESDIR (/etc/tmpfiles.d), CONFIGURATION (release: scripts/release-build, the
#            static Swift runtime and link-time optimization; debug: a plain swift build).

PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
UNITDIR ?= /etc/systemd/system
UDEVDIR ?= /etc/udev/rules.d
SYSUSERSDIR ?= /etc/sysusers.d
TMPFILESDIR ?= /etc/tmpfiles.d
CONFIGURATION ?= release
# The release build's flags live in scripts/release-build (the benchmarks and the qemu guest build
# with it too, so they measure what is installed).
SWIFT_BUILD = $(if $(filter release,$(CONFIGURATION)),scripts/release-build,swift build -c $(CONFIGURATION))
BINDIR = $(PREFIX)/bin
DOCDIR = $(PREFIX)/share/doc/touchgestured
MANDIR = $(PREFIX)/share/man
# touchgestured-web serves this folder (PREFIX/share/touchgestured/www beside its PREFIX/bin).
WWWDIR = $(PREFIX)/share/touchgestured/www
BUILD = .build/$(CONFIGURATION)
# The man pages: swift-argument-parser's generate-manual (a tool of that package, built for the
# host) reads each binary's commands and options. Dated by SOURCE_DATE_EPOCH (dpkg sets it from
# the changelog) or the last commit, so a rebuild makes the same pages. The daemon and the bridge
# take no subcommand: the generator's "subcommand" and "help" entries are taken out of theirs.
MANBUILD = .build/man
MANDATE ?= $(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} +%Y-%m-%d)

.PHONY: all build install install-files uninstall

all: build

build:
	$(SWIFT_BUILD) --product touchgestured
	$(SWIFT_BUILD) --product touchgesturectl
	$(SWIFT_BUILD) --product touchgestured-web
	swift build --product generate-manual
	mkdir -p $(MANBUILD)
	$$(swift build --show-bin-path)/generate-manual $(BUILD)/touchgestured --section 8 --date $(MANDATE) -o $(MANBUILD)
	$$(swift build --show-bin-path)/generate-manual $(BUILD)/touchgestured-web --section 8 --date $(MANDATE) -o $(MANBUILD)
	$$(swift build --show-bin-path)/generate-manual $(BUILD)/touchgesturectl --section 1 --date $(MANDATE) -o $(MANBUILD)
	sed -i -e '/^\.Ar subcommand$$/d' -e '/^\.It Em help$$/,/^\.El$$/d' $(MANBUILD)/touchgestured.8 $(MANBUILD)/touchgestured-web.8

# install-files runs after build, in this order even under make -j.
install: build
	@$(MAKE) --no-print-directory install-files
	@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then \
		systemd-sysusers $(SYSUSERSDIR)/touchgestured.conf; systemd-tmpfiles --create $(TMPFILESDIR)/touchgestured.conf; \
		systemctl daemon-reload; udevadm control --reload 2>/dev/null || true; \
		echo "installed: systemctl enable --now touchgestured-actions.socket touchgestured.socket touchgestured.service"; fi

# The docs go in as the checkout lays them out (README.md, docs/, examples/, ...), so every link
# between them holds where they are installed (scripts/doc-links checks).
install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) \
		$(DESTDIR)$(SYSCONFDIR)/touchgestured $(DESTDIR)$(WWWDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/examples/recordings $(DESTDIR)$(DOCDIR)/examples/admin-mode \
		$(DESTDIR)$(DOCDIR)/examples/strokes $(DESTDIR)$(DOCDIR)/examples/recordings/strokes \
		$(DESTDIR)$(DOCDIR)/clients/python $(DESTDIR)$(DOCDIR)/udev
	install -m 0755 $(BUILD)/touchgestured $(BUILD)/touchgesturectl $(BUILD)/touchgestured-web $(DESTDIR)$(BINDIR)/
	install -m 0644 $(MANBUILD)/touchgesturectl.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MANBUILD)/touchgestured.8 $(MANBUILD)/touchgestured-web.8 $(DESTDIR)$(MANDIR)/man8/
	sed 's|@BINDIR@|$(BINDIR)|g; s|/usr/local/share/doc|$(PREFIX)/share/doc|g' systemd/touchgestured.service \
		> $(DESTDIR)$(UNITDIR)/touchgestured.service
	sed 's|/usr/local/share/doc|$(PREFIX)/share/doc|g' systemd/touchgestured.socket > $(DESTDIR)$(UNITDIR)/touchgestured.socket
	sed 's|@BINDIR@|$(BINDIR)|g; s|/usr/local/share/doc|$(PREFIX)/share/doc|g' systemd/touchgestured-actions.service \
		> $(DESTDIR)$(UNITDIR)/touchgestured-actions.service
	sed 's|/usr/local/share/doc|$(PREFIX)/share/doc|g' systemd/touchgestured-actions.socket > $(DESTDIR)$(UNITDIR)/touchgestured-actions.socket
	sed 's|@BINDIR@|$(BINDIR)|g; s|/usr/local/share/doc|$(PREFIX)/share/doc|g' systemd/touchgestured-metrics.service \
		> $(DESTDIR)$(UNITDIR)/touchgestured-metrics.service
	sed 's|/usr/local/share/doc|$(PREFIX)/share/doc|g' systemd/touchgestured-metrics.timer > $(DESTDIR)$(UNITDIR)/touchgestured-metrics.timer
	sed 's|@BINDIR@|$(BINDIR)|g; s|/usr/local/share/doc|$(PREFIX)/share/doc|g' systemd/touchgestured-web.service \
		> $(DESTDIR)$(UNITDIR)/touchgestured-web.service
	install -m 0644 systemd/touchgestured.sysusers $(DESTDIR)$(SYSUSERSDIR)/touchgestured.conf
	install -m 0644 systemd/touchgestured.tmpfiles $(DESTDIR)$(TMPFILESDIR)/touchgestured.conf
	install -m 0644 web/touchgestured.js web/touchgestured-region.js web/touchgestured-lines.js examples/web/index.html examples/web/demo.js examples/web/demo.css examples/web/calibrate.html examples/web/calibrate.js examples/web/sheet.html examples/web/sheet.js $(DESTDIR)$(WWWDIR)/
	install -m 0644 udev/70-touchgestured.rules udev/71-touchgestured-uinput.rules $(DESTDIR)$(UDEVDIR)/
	test -e $(DESTDIR)$(SYSCONFDIR)/touchgestured/touchgestured.toml || \
		install -m 0644 config/touchgestured.toml $(DESTDIR)$(SYSCONFDIR)/touchgestured/touchgestured.toml
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md docs/*.png docs/*.csv $(DESTDIR)$(DOCDIR)/docs/
	install -m 0644 examples/*.toml $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 examples/recordings/*.events $(DESTDIR)$(DOCDIR)/examples/recordings/
	install -m 0644 examples/strokes/*.toml $(DESTDIR)$(DOCDIR)/examples/strokes/
	install -m 0644 examples/recordings/strokes/*.events $(DESTDIR)$(DOCDIR)/examples/recordings/strokes/
	install -m 0644 examples/admin-mode/* $(DESTDIR)$(DOCDIR)/examples/admin-mode/
	install -m 0644 clients/python/README.md $(DESTDIR)$(DOCDIR)/clients/python/
	install -m 0644 udev/60-touchgestured-local.rules.example $(DESTDIR)$(DOCDIR)/udev/

uninstall:
	-@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then \
		systemctl disable --now touchgestured-web.service touchgestured-metrics.timer touchgestured.service touchgestured.socket \
			touchgestured-actions.service touchgestured-actions.socket 2>/dev/null; fi
	rm -f $(DESTDIR)$(BINDIR)/touchgestured $(DESTDIR)$(BINDIR)/touchgesturectl $(DESTDIR)$(BINDIR)/touchgestured-web
	rm -f $(DESTDIR)$(MANDIR)/man1/touchgesturectl.1 $(DESTDIR)$(MANDIR)/man8/touchgestured.8 $(DESTDIR)$(MANDIR)/man8/touchgestured-web.8
	rm -f $(DESTDIR)$(UNITDIR)/touchgestured.service $(DESTDIR)$(UNITDIR)/touchgestured.socket
	rm -f $(DESTDIR)$(UNITDIR)/touchgestured-actions.service $(DESTDIR)$(UNITDIR)/touchgestured-actions.socket
	rm -f $(DESTDIR)$(UNITDIR)/touchgestured-metrics.service $(DESTDIR)$(UNITDIR)/touchgestured-metrics.timer
	rm -f $(DESTDIR)$(UNITDIR)/touchgestured-web.service $(DESTDIR)$(TMPFILESDIR)/touchgestured.conf
	rm -rf $(DESTDIR)$(PREFIX)/share/touchgestured
	rm -f $(DESTDIR)$(SYSUSERSDIR)/touchgestured.conf $(DESTDIR)$(UDEVDIR)/70-touchgestured.rules $(DESTDIR)$(UDEVDIR)/71-touchgestured-uinput.rules
	rm -rf $(DESTDIR)$(DOCDIR)
	cmp -s config/touchgestured.toml $(DESTDIR)$(SYSCONFDIR)/touchgestured/touchgestured.toml && \
		rm -f $(DESTDIR)$(SYSCONFDIR)/touchgestured/touchgestured.toml && \
		rmdir $(DESTDIR)$(SYSCONFDIR)/touchgestured 2>/dev/null || true
	-@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
