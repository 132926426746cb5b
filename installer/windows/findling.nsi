; Findling for Windows: a per-user installer (no administrator rights) around the
; PyInstaller one-folder app.
;   makensis /DVERSION=0.1.0 /DSOURCE=..\..\dist\Findling /DOUTFILE=Findling-0.1.0-setup.exe installer\windows\findling.nsi
; installer/build_windows.ps1 passes the version read from pyproject.toml.

Unicode true
RequestExecutionLevel user
SetCompressor /SOLID lzma

!ifndef VERSION
  !error "pass /DVERSION=x.y.z (read from pyproject.toml by build_windows.ps1)"
!endif
!ifndef SOURCE
  !define SOURCE "..\..\dist\Findling"
!endif
!ifndef OUTFILE
  !define OUTFILE "Findling-${VERSION}-setup.exe"
!endif

!include "MUI2.nsh"

Name "Findling ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\Findling"
InstallDirRegKey HKCU "Software\Findling" "InstallDir"
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "Findling"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "Findling desktop search"
VIAddVersionKey "LegalCopyright" "Apache-2.0"

!define MUI_ICON "..\..\resources\icons\findling.ico"
!define MUI_UNICON "..\..\resources\icons\findling.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\Findling.exe"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_LICENSE "..\..\LICENSE"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Findling"

Section "Findling" SecMain
  SectionIn RO
  SetOutPath "$INSTDIR"
  File /r "${SOURCE}\*.*"
  WriteUninstaller "$INSTDIR\Uninstall.exe"
  CreateDirectory "$SMPROGRAMS\Findling"
  CreateShortcut "$SMPROGRAMS\Findling\Findling.lnk" "$INSTDIR\Findling.exe" "" "$INSTDIR\Findling.exe" 0
  CreateShortcut "$SMPROGRAMS\Findling\Uninstall Findling.lnk" "$INSTDIR\Uninstall.exe"
  WriteRegStr HKCU "Software\Findling" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "Findling"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "Findling"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\Findling.exe"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\Uninstall.exe"'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
  ; The index and models live in the user's data and cache folders: kept, so a reinstall
  ; finds them. The uninstaller removes only the program.
  RMDir /r "$INSTDIR"
  Delete "$SMPROGRAMS\Findling\Findling.lnk"
  Delete "$SMPROGRAMS\Findling\Uninstall Findling.lnk"
  RMDir "$SMPROGRAMS\Findling"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
  DeleteRegKey HKCU "Software\Findling"
SectionEnd
