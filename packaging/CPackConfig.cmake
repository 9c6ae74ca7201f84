# Debian package: `cpack -G DEB` in the build dir (tests/suites/60-serve.sh builds and
# installs it into a scratch root). Installs the gotraced binary (cli/CMakeLists.txt),
# the systemd unit, the default configuration (a conffile) and the man page.
include(GNUInstallDirs)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/gotraced.service DESTINATION lib/systemd/system)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/gotraced.toml DESTINATION /etc/gotraced)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/gotraced.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/CONTRIBUTING.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "gotraced")
set(CPACK_PACKAGE_VENDOR "gotraced")
set(CPACK_PACKAGE_CONTACT "gotraced maintainers <maintainers@gotraced.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Go execution traces from outside the process, with eBPF")
set(CPACK_PACKAGE_DESCRIPTION "gotraced records a Go program's execution trace without recompiling or \
restarting it and writes Go's own trace format (go tool trace opens it). gotraced serve is an always-on \
flight recorder for configured processes with an HTTP endpoint on a Unix socket.")
# The installed binary without debug info (the build keeps it for debugging).
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Library dependencies from the binary's NEEDED entries (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${CMAKE_SOURCE_DIR}/packaging/debian/conffiles;${CMAKE_SOURCE_DIR}/packaging/debian/postinst;${CMAKE_SOURCE_DIR}/packaging/debian/prerm;${CMAKE_SOURCE_DIR}/packaging/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
